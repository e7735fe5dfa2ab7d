import type { SortKey } from '../request/parseListQuery.ts';

/** The full order of a list: the requested keys, then id in the last key's direction. */
export function totalOrder(sort: SortKey[]): SortKey[] {
  const last = sort[sort.length - 1]?.direction ?? 'asc';
  return [...sort, { column: 'id', direction: last }];
}
