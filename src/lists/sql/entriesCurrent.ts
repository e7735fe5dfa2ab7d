import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { ListQuery } from '../request/parseListQuery.ts';

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
