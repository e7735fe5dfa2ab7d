import { CARRIED_COLUMNS } from '../counters/metadataEntries.ts';
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

/** The query with its status and amount conditions tested on the payments, not in their entries. */
export function withEntriesBehind(query: ListQuery): ListQuery {
  return {
    ...query,
    entriesBehind: true,
    conditions: query.conditions.map((c) => ((c.match === 'in' || c.match === 'range') && MOVING.includes(c.column) ? { ...c, notInEntries: true } : c)),
  };
}
