import type { Condition } from '../request/parseListQuery.ts';
import { METADATA_ENTRY_TABLE, type MetadataList } from '../counters/metadataValueCounts.ts';
import { CARRIED_COLUMNS } from '../counters/metadataEntries.ts';

/** Which list an entry table is the metadata of. */
export const LIST_OF_ENTRIES = Object.fromEntries(Object.entries(METADATA_ENTRY_TABLE).map(([list, table]) => [table, list])) as Record<string, MetadataList>;

/**
 * Whether a list condition beside a metadata search of `entryTable` is answered by the entries
 * themselves, no record read: a created_at range (each entry holds its record's created_at,
 * migration 0023), or any-of values / a range of a column the entries carry (a payment's
 * currency, card_brand, amount: migration 0030; its status, rewritten as it moves: 0032). Not an
 * account's status or currency (its entries carry nothing).
 */
export function testedInEntries(entryTable: string, c: Condition): boolean {
  const list = LIST_OF_ENTRIES[entryTable];
  if (list === undefined) return false;
  if (c.match === 'range' && c.column === 'created_at') return true;
  if ((c.match === 'in' || c.match === 'range') && c.notInEntries) return false;
  const carried = (CARRIED_COLUMNS[list] as readonly string[]).includes(c.column);
  return carried && (c.match === 'in' || c.match === 'range');
}
