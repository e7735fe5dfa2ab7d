import type { ListQuery, SortKey } from '../request/parseListQuery.ts';

/** The full order of a list: the requested keys, then id in the last key's direction. */
export function totalOrder(sort: SortKey[]): SortKey[] {
  const last = sort[sort.length - 1]?.direction ?? 'asc';
  return [...sort, { column: 'id', direction: last }];
}

/** The same list in the opposite order, so that a page near the end is counted from there. */
export function reversed(query: ListQuery): ListQuery {
  return { ...query, sort: query.sort.map((k) => ({ ...k, direction: k.direction === 'asc' ? 'desc' : 'asc' })) };
}
