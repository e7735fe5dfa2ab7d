import type { Write } from '../../db/writeTransaction.ts';
import { recordChange, type ListChange } from './listChanges.ts';
import { deleteMetadataEntries, insertMetadataEntries, replaceMetadataEntries, type Carried, type EntryRecord } from './metadataEntries.ts';

/**
 * What a write does to a record's metadata entries (migration 0016): a record created with its
 * metadata, its metadata replaced (PATCH replaces the whole object; `statusBefore` is the status
 * the old entries were counted in), or the record deleted.
 */
export type EntriesWrite =
  | { readonly set: Record<string, string>; readonly record: EntryRecord & Carried; readonly statusBefore?: string }
  | { readonly remove: Pick<EntryRecord, 'id' | 'status'> };

/**
 * Everything a write of a listed record keeps for the lists, in its transaction: its metadata
 * entries (what metadata search reads) and one list change (what the counts fold: countFolder.ts).
 * The one way payments and accounts tell the lists they wrote; the rows it costs are budgeted
 * (writeBudget.ts, rowsPerWrite.e2e.test.ts).
 */
export async function recordListWrite(write: Write, tenantId: string, change: ListChange, entries?: EntriesWrite): Promise<void> {
  if (entries && 'remove' in entries) await deleteMetadataEntries(write.trx, change.list, tenantId, entries.remove);
  else if (entries?.statusBefore !== undefined)
    await replaceMetadataEntries(write.trx, change.list, tenantId, entries.record, entries.statusBefore, entries.set);
  else if (entries) await insertMetadataEntries(write.trx, change.list, tenantId, entries.record, entries.set, write.hold, write.dialect === 'postgres');
  await recordChange(write, tenantId, change);
}
