import { sql, type Transaction } from 'kysely';
import type { Database, MetadataEntryTable, PaymentMetadataEntryTable } from '../../db/schema.ts';
import type { HeldInsert } from '../../db/writeTransaction.ts';
import { METADATA_ENTRY_TABLE, type MetadataList, type ValueCountDelta } from './metadataValueCounts.ts';

/**
 * Where metadata search finds records (migrations 0016, 0023): one entry row per key/value pair of a record's
 * metadata. Every write that sets metadata writes its entries in the same transaction, so a snapshot's records
 * and entries agree; each function returns the entries it added (+1) and removed (−1) for the write to count
 * last, with its other counted rows (writeCountedRows, adjustValueCounts; decisions 0016, 0020).
 */
/**
 * Which record entries are of: its id, its created_at, which orders a value's entries as the list
 * (migration 0023), and its status, under which their value counts are kept (migration 0024).
 */
export interface EntryRecord {
  id: string;
  created_at: string;
  status: string;
}

/**
 * The columns of its record a list's entries carry: a payment's currency, card_brand and amount
 * (migration 0030) and status (migration 0032), which a search beside those filters tests in the
 * entries; an account's none (its currency and status change, and its entries are few to rewrite
 * only for a payment's).
 */
export const CARRIED_COLUMNS = { accounts: [], payments: ['currency', 'card_brand', 'amount', 'status'] } as const satisfies Record<
  MetadataList,
  ReadonlyArray<keyof PaymentMetadataEntryTable>
>;

/** What a record's entries carry of it: its CARRIED_COLUMNS. */
export type Carried = Partial<Pick<PaymentMetadataEntryTable, (typeof CARRIED_COLUMNS.payments)[number]>>;

/** The carried columns of `record` in `list` (CARRIED_COLUMNS), every one required to be there. */
export function carriedOf(list: MetadataList, record: Carried): Carried {
  const carried: Record<string, unknown> = {};
  for (const column of CARRIED_COLUMNS[list]) {
    if (record[column] === undefined) throw new Error(`a ${list} entry carries its record's ${column}`);
    carried[column] = record[column];
  }
  return carried as Carried;
}

/** A record's metadata as its entry rows, each with `carried` (carriedOf). */
export function metadataEntryRows(
  tenantId: string,
  record: Omit<EntryRecord, 'status'>,
  metadata: Record<string, string>,
  carried: Carried = {},
): Array<MetadataEntryTable & Carried> {
  return Object.entries(metadata).map(([key, value]) => ({ tenant_id: tenantId, key, value, created_at: record.created_at, record_id: record.id, ...carried }));
}

/**
 * The entries of a record just created (none existed), inserted by `run` (the write's own, or held:
 * writeTransaction.ts). On PostgreSQL (`keysAsArrays`) the keys and values go as two arrays, so the
 * statement's text is one whatever the number of keys and the write's statement stays prepared
 * (decision 0097).
 */
export async function insertMetadataEntries(
  trx: Transaction<Database>,
  list: MetadataList,
  tenantId: string,
  record: EntryRecord & Carried,
  metadata: Record<string, string>,
  run: (insert: HeldInsert) => Promise<unknown> = (insert) => insert.execute(),
  keysAsArrays = false,
): Promise<ValueCountDelta[]> {
  const rows = metadataEntryRows(tenantId, record, metadata, carriedOf(list, record));
  if (rows.length > 0) await run(keysAsArrays ? entriesFromArrays(trx, list, rows) : trx.insertInto(METADATA_ENTRY_TABLE[list]).values(rows));
  return rows.map((r) => ({ key: r.key, value: r.value, status: record.status, delta: 1 }));
}

/** PostgreSQL: `rows` (one record's entries) inserted from its keys and values as arrays, the rest of each row shared. */
function entriesFromArrays(trx: Transaction<Database>, list: MetadataList, rows: Array<MetadataEntryTable & Carried>): HeldInsert {
  const [first] = rows;
  const shared = (['tenant_id', 'created_at', 'record_id', ...CARRIED_COLUMNS[list]] as const).map((column) => [column, first[column]] as const);
  // A payment's entries carry more columns than an account's: the union of the two tables takes only the shared ones.
  const columns = ['key', 'value', ...shared.map(([column]) => column)] as never[];
  const keys = rows.map((r) => r.key);
  const values = rows.map((r) => r.value);
  return trx
    .insertInto(METADATA_ENTRY_TABLE[list])
    .columns(columns)
    .expression(
      sql`select m.key, m.value, ${sql.join(shared.map(([, value]) => sql`${value}`))} from unnest(${keys}::text[], ${values}::text[]) as m(key, value)`,
    );
}

/**
 * A record's entries after its metadata was replaced (PATCH replaces the whole object): the old
 * ones leave the counts of the record's status before the write (`before`), the new ones join
 * those of its status after it (`record`'s).
 */
export async function replaceMetadataEntries(
  trx: Transaction<Database>,
  list: MetadataList,
  tenantId: string,
  record: EntryRecord & Carried,
  before: string,
  metadata: Record<string, string>,
): Promise<ValueCountDelta[]> {
  const removed = await deleteMetadataEntries(trx, list, tenantId, { id: record.id, status: before });
  return [...removed, ...(await insertMetadataEntries(trx, list, tenantId, record, metadata))];
}

/** A deleted record's entries (those removed, as the table held them), in the record's status. */
export async function deleteMetadataEntries(
  trx: Transaction<Database>,
  list: MetadataList,
  tenantId: string,
  record: Pick<EntryRecord, 'id' | 'status'>,
): Promise<ValueCountDelta[]> {
  const removed = await trx
    .deleteFrom(METADATA_ENTRY_TABLE[list])
    .where('record_id', '=', record.id)
    .where('tenant_id', '=', tenantId)
    .returning(['key', 'value'])
    .execute();
  return removed.map((r) => ({ key: r.key, value: r.value, status: record.status, delta: -1 }));
}

/**
 * A payment's entries after a write (`changes` to the payment `before`), in the write's
 * transaction: what they carry of it that the write changed (CARRIED_COLUMNS; in practice its
 * status, migration 0032, and the amount a capture of less than was authorized lowers, 0030),
 * each entry found by its key, value and record (the `payment_metadata_value_record` index).
 * Nothing when the write changed none of it.
 */
export async function setEntriesCarried(
  trx: Transaction<Database>,
  before: Carried & { tenant_id: string; id: string; metadata: string | Record<string, string> },
  changes: Carried,
): Promise<void> {
  const changed = Object.fromEntries(
    CARRIED_COLUMNS.payments.flatMap((c) => (changes[c] !== undefined && changes[c] !== before[c] ? [[c, changes[c]]] : [])),
  ) as Carried;
  if (Object.keys(changed).length === 0) return;
  const { tenant_id: tenantId, id: recordId, metadata } = before;
  const pairs: Record<string, string> = typeof metadata === 'string' ? JSON.parse(metadata) : metadata;
  for (const [key, value] of Object.entries(pairs)) {
    await trx
      .updateTable('payment_metadata')
      .set(changed)
      .where('tenant_id', '=', tenantId)
      .where('key', '=', key)
      .where('value', '=', value)
      .where('record_id', '=', recordId)
      .execute();
  }
}
