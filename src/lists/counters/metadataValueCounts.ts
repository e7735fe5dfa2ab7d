import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Write } from '../../db/writeTransaction.ts';
import { mergeDeltas } from './mergeDeltas.ts';
import { changeSidesSql } from './changeTail.ts';
import { sqliteRowsUpsert } from './sqliteRowsUpsert.ts';

/**
 * Metadata search's entry tables (migration 0016), by list: each key/value pair of a record's
 * metadata is one row there. Here, below the lists, because their counts are kept here.
 */
export const METADATA_ENTRY_TABLE = { accounts: 'account_metadata', payments: 'payment_metadata' } as const;

export type MetadataList = keyof typeof METADATA_ENTRY_TABLE;

/** One entry added (+1) or removed (−1) by a write, in its record's status (migration 0024). */
export interface ValueCountDelta {
  key: string;
  value: string;
  status: string;
  delta: number;
}

/** A metadata_value_counts row as written. */
export interface ValueCountRow {
  tenant_id: string;
  list: MetadataList;
  key: string;
  value: string;
  status: string;
  shard: number;
  n: number;
}

/** The rows (of one shard) deltas add to: one per value and status, zeros dropped, in the global order (mergeDeltas). */
export function valueCountRows(tenantId: string, list: MetadataList, deltas: ValueCountDelta[], shard: number): ValueCountRow[] {
  return mergeDeltas(deltas, (d) => `${d.key}\u0000${d.value}\u0000${d.status}`).map((d) => ({
    tenant_id: tenantId,
    list,
    key: d.key,
    value: d.value,
    status: d.status,
    shard,
    n: d.delta,
  }));
}

/**
 * PostgreSQL: the upsert of value count rows (one list's), as one array per column (one statement
 * text for any number of rows, prepared once), run when `after` holds (countedRows.ts chains it
 * after the other counted rows' upserts).
 */
export function valueCountUpsert(tenantId: string, list: MetadataList, rows: ValueCountRow[], after: RawBuilder<unknown>) {
  const column = <K extends keyof ValueCountRow>(key: K) => rows.map((r) => r[key]);
  return sql`insert into metadata_value_counts (tenant_id, list, key, value, status, shard, n)
    select ${tenantId}, ${list}, * from unnest(${column('key')}::text[], ${column('value')}::text[], ${column('status')}::text[],
      ${column('shard')}::smallint[], ${column('n')}::bigint[])
    where ${after}
    on conflict (tenant_id, list, key, value, status, shard) do update set n = metadata_value_counts.n + excluded.n`;
}

/**
 * Adds a write's entry deltas to metadata_value_counts in its shard's rows, inside its transaction, so the counts
 * are exact in the same commit (decision 0020). A common value is a hot row: written last, in one order (tables,
 * then keys), held one round trip and the commit (decision 0016). A payment create hands its deltas to
 * writeCountedRows (countedRows.ts) instead; an account's writes call this after their other counts.
 */
export async function adjustValueCounts(write: Write, tenantId: string, list: MetadataList, deltas: ValueCountDelta[]): Promise<void> {
  const { trx, shard } = write;
  const rows = valueCountRows(tenantId, list, deltas, shard);
  if (rows.length === 0) return;
  if (write.dialect === 'postgres') {
    await valueCountUpsert(tenantId, list, rows, sql`true`).execute(trx);
    return;
  }
  await sqliteRowsUpsert('metadata_value_counts', rows).execute(trx);
}

/**
 * Rebuilds a tenant's value counts from its entries, each joined with its record for its status,
 * one grouped INSERT … SELECT per list, inside the caller's transaction.
 */
export async function rebuildValueCounts(trx: Transaction<Database>, tenantId: string): Promise<void> {
  await trx.deleteFrom('metadata_value_counts').where('tenant_id', '=', tenantId).execute();
  for (const list of ['accounts', 'payments'] as const) {
    await sql`insert into metadata_value_counts (tenant_id, list, key, value, status, shard, n)
      select e.tenant_id, ${list}, e.key, e.value, r.status, 0, count(*) from ${sql.table(METADATA_ENTRY_TABLE[list])} as e
      join ${sql.table(list)} as r on r.id = e.record_id and r.tenant_id = e.tenant_id
      where e.tenant_id = ${tenantId} group by e.tenant_id, e.key, e.value, r.status`.execute(trx);
  }
}

/**
 * How many of the tenant's records of `list` hold any of `values` of `key` (a record has one
 * value per key: the sum), in any of `statuses` when given (a record has one status: the sum
 * again), from the counts: one row per value, status and shard read. bigint on both databases.
 */
export function valueCountSql(tenantId: string, list: MetadataList, key: string, values: readonly string[], statuses?: readonly string[]) {
  const anyOf = (column: string, of: readonly string[]) =>
    of.length === 1 ? sql`${sql.ref(column)} = ${of[0]}` : sql`${sql.ref(column)} in (${sql.join(of)})`;
  const inStatuses = statuses ? sql` and ${anyOf('status', statuses)}` : sql``;
  // The changes not folded yet (changeTail.ts): each side's metadata holds the value or not.
  const value = sql`(s.metadata ->> cast(${key} as text))`;
  const tailValues = values.length === 1 ? sql`${value} = ${values[0]}` : sql`${value} in (${sql.join(values)})`;
  return sql<number>`((select cast(coalesce(sum(n), 0) as bigint) from metadata_value_counts
    where tenant_id = ${tenantId} and list = ${list} and key = ${key} and ${anyOf('value', values)}${inStatuses})
    + (select cast(coalesce(sum(sign), 0) as bigint) from ${changeSidesSql(tenantId, list)} s where ${tailValues}${inStatuses}))`;
}

/**
 * The value counts many entries written together add (a seed batch), tallied as they are written:
 * what adjustValueCounts of each record's entries would add up to, without a rebuild's second
 * read of the entries (an addition, so exact with other writers of the tenant at work). `take`
 * hands the rows over, in the global order, and starts again.
 */
export class ValueCountTally {
  readonly #counts = new Map<string, ValueCountRow>();

  /** `status(e)`: the status of the record entry `e` is of. */
  add<E extends { tenant_id: string; key: string; value: string }>(list: MetadataList, entries: Iterable<E>, status: (entry: E) => string): void {
    for (const e of entries) {
      const s = status(e);
      const k = `${e.tenant_id}\u0000${list}\u0000${e.key}\u0000${e.value}\u0000${s}`;
      const row = this.#counts.get(k);
      if (row) row.n++;
      else this.#counts.set(k, { tenant_id: e.tenant_id, list, key: e.key, value: e.value, status: s, shard: 0, n: 1 });
    }
  }

  take(shard: number): ValueCountRow[] {
    const rows = [...this.#counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => ({ ...r, shard }));
    this.#counts.clear();
    return rows;
  }
}
