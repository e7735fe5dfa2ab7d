import type { Transaction } from 'kysely';
import type { Database, MetadataEntryTable } from '../db/schema.ts';

/**
 * Where metadata search finds records (migration 0016): each list with metadata keeps every
 * key/value pair of each record's metadata as one row of its entry table. Every write that sets a
 * record's metadata writes its rows in the same transaction, so a list read in one snapshot sees
 * the records and their entries agree.
 */
export const METADATA_ENTRY_TABLE = { accounts: 'account_metadata', payments: 'payment_metadata' } as const;

export type MetadataList = keyof typeof METADATA_ENTRY_TABLE;

/** A record's metadata as its entry rows. */
export function metadataEntryRows(tenantId: string, recordId: string, metadata: Record<string, string>): MetadataEntryTable[] {
  return Object.entries(metadata).map(([key, value]) => ({ tenant_id: tenantId, key, value, record_id: recordId }));
}

/** The entries of a record just created (none existed). */
export async function insertMetadataEntries(
  trx: Transaction<Database>,
  list: MetadataList,
  tenantId: string,
  recordId: string,
  metadata: Record<string, string>,
): Promise<void> {
  const rows = metadataEntryRows(tenantId, recordId, metadata);
  if (rows.length > 0) await trx.insertInto(METADATA_ENTRY_TABLE[list]).values(rows).execute();
}

/** A record's entries after its metadata was replaced (PATCH replaces the whole object). */
export async function replaceMetadataEntries(
  trx: Transaction<Database>,
  list: MetadataList,
  tenantId: string,
  recordId: string,
  metadata: Record<string, string>,
): Promise<void> {
  await deleteMetadataEntries(trx, list, tenantId, recordId);
  await insertMetadataEntries(trx, list, tenantId, recordId, metadata);
}

/** A deleted record's entries. */
export async function deleteMetadataEntries(trx: Transaction<Database>, list: MetadataList, tenantId: string, recordId: string): Promise<void> {
  await trx.deleteFrom(METADATA_ENTRY_TABLE[list]).where('record_id', '=', recordId).where('tenant_id', '=', tenantId).execute();
}
