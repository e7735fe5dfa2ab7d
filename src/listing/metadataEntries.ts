import type { Transaction } from 'kysely';
import type { Database, MetadataEntryTable } from '../db/schema.ts';
import { METADATA_ENTRY_TABLE, type MetadataList, type ValueCountDelta } from '../counts/metadataValueCounts.ts';

/**
 * Where metadata search finds records (migrations 0016, 0023): each list with metadata keeps every
 * key/value pair of each record's metadata as one row of its entry table. Every write that sets a
 * record's metadata writes its rows in the same transaction, so a list read in one snapshot sees
 * the records and their entries agree. Each function returns the entries it added (+1) and
 * removed (−1): the write adds them to metadata_value_counts with its other counted rows, last,
 * in the same transaction (writeCountedRows, adjustValueCounts).
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

/** A record's metadata as its entry rows. */
export function metadataEntryRows(tenantId: string, record: Omit<EntryRecord, 'status'>, metadata: Record<string, string>): MetadataEntryTable[] {
  return Object.entries(metadata).map(([key, value]) => ({ tenant_id: tenantId, key, value, created_at: record.created_at, record_id: record.id }));
}

/** The entries of a record just created (none existed). */
export async function insertMetadataEntries(
  trx: Transaction<Database>,
  list: MetadataList,
  tenantId: string,
  record: EntryRecord,
  metadata: Record<string, string>,
): Promise<ValueCountDelta[]> {
  const rows = metadataEntryRows(tenantId, record, metadata);
  if (rows.length > 0) await trx.insertInto(METADATA_ENTRY_TABLE[list]).values(rows).execute();
  return rows.map((r) => ({ key: r.key, value: r.value, status: record.status, delta: 1 }));
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
  record: EntryRecord,
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
