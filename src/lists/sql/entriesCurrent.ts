import { sql, type Kysely } from 'kysely';
import { CARRIED_COLUMNS } from '../counters/metadataEntries.ts';
import type { Database } from '../../db/schema.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListTable } from '../request/listScope.ts';

/** The carried columns a write changes after the entries were written: a payment's status and amount (foldChanges.ts moves them). */
const MOVING: readonly string[] = CARRIED_COLUMNS.payments.filter((c) => c === 'status' || c === 'amount');

/**
 * Whether a list would read a payment's status or amount from its metadata entries: a metadata
 * search of payments filtered or sorted by either. Such a list checks, in its page's snapshot,
 * that no change moving them waits to be folded (entriesBehind), and if one does, reads them
 * from the payments (withEntriesBehind).
 */
export function readsMovingColumns(table: ListTable, query: ListQuery): boolean {
  if (table !== 'payments' || !query.conditions.some((c) => c.match === 'metadata')) return false;
  return (
    query.conditions.some((c) => (c.match === 'in' || c.match === 'range') && MOVING.includes(c.column)) || query.sort.some((k) => MOVING.includes(k.column))
  );
}

/**
 * Whether a change that moved a payment (status or amount) waits to be folded, in the caller's
 * snapshot, among the payments holding a value `query` searches: only their entries are read.
 */
export async function entriesBehind(db: Kysely<Database>, tenantId: string, query: ListQuery): Promise<boolean> {
  const searched = query.conditions.flatMap((c) =>
    c.match === 'metadata' ? [sql`(after_metadata ->> cast(${c.key} as text)) in (${sql.join(c.values)})`] : [],
  );
  if (searched.length === 0) return false;
  const { rows } = await sql<{ behind: number }>`select count(*) as behind from (select 1 from list_changes
    where tenant_id = ${tenantId} and list = 'payments' and before_status is not null and after_status is not null
      and (before_status <> after_status or before_amount <> after_amount) and (${sql.join(searched, sql` or `)}) limit 1) as c`.execute(db);
  return Number(rows[0].behind) > 0;
}

/** The query with its status and amount conditions tested on the payments, not in their entries. */
export function withEntriesBehind(query: ListQuery): ListQuery {
  return {
    ...query,
    entriesBehind: true,
    conditions: query.conditions.map((c) => ((c.match === 'in' || c.match === 'range') && MOVING.includes(c.column) ? { ...c, notInEntries: true } : c)),
  };
}
