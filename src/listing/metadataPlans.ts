import type { ListQuery } from '../listquery/parseListQuery.ts';
import type { ListScope } from './listScope.ts';

/**
 * How a metadata search's page is found (docs/query-plans.md#metadata-search). Two plans are
 * right, depending on how many records hold the values searched:
 *
 * - drive from the entries: every matching entry's record read and sorted (the entry table's
 *   key gives them in created_at order only, and for one value at a time); cheap for a rare
 *   value, ~1–2 s for a value a fifteenth of a million payments hold;
 * - walk the list's own index in its order (the same path as the list without the search) and
 *   probe the entry table's primary key for each row (`written: 'probe'`, applyListQuery.ts): a
 *   page costs about (skip + per_page) × records ÷ matches rows, a few for a common value, and
 *   every row of the tenant for a value nobody has.
 *
 * Neither planner can tell which from the statement: SQLite keeps no statistics, and a
 * PostgreSQL generic plan does not know the value. The number of entries of the searched values
 * (an index-only count over (tenant, key, value); the least over several keys, all of which must
 * hold) chooses, like rangePlans.ts' walkIsCheaper (probeIsCheaper). Under a search of several keys or with other filters
 * the matches are fewer than the entries; the choice assumes they are independent.
 *
 * A search of one key with one value in created_at order over the whole list needs neither: its
 * pages are read in the entries' own order (entryOrderPage.ts, migration 0023).
 */

/** Whether a list query searches metadata. */
export function searchesMetadata(query: ListQuery): boolean {
  return query.conditions.some((c) => c.match === 'metadata');
}

/** `query` with every metadata condition written as a probe of each row (same rows). */
export function withMetadataProbed(query: ListQuery): ListQuery {
  return { ...query, conditions: query.conditions.map((c) => (c.match === 'metadata' ? { ...c, written: 'probe' as const } : c)) };
}

/**
 * `query` driven from the entries of its searched key number `lead` (the one with the fewest):
 * every other key written as a probe of each record found, so that no planner drives from them.
 */
export function withMetadataLead(query: ListQuery, lead: number): ListQuery {
  let n = -1;
  return {
    ...query,
    conditions: query.conditions.map((c) => (c.match === 'metadata' && ++n !== lead ? { ...c, written: 'probe' as const } : c)),
  };
}

/**
 * Whether the list's total is the number of entries of the searched values itself: its only
 * condition is one metadata key, over the tenant's whole list. A record has one value per key,
 * so its entries of any-of values are disjoint and each is one record (deleted records' entries
 * go in the same transaction: metadataEntries.ts).
 */
export function totalIsEntryCount(scope: ListScope, query: ListQuery): boolean {
  return query.conditions.length === 1 && query.conditions[0].match === 'metadata' && scope.accountId === undefined && scope.endpointId === undefined;
}

/**
 * What a driven entry costs in rows walked: the drive reads each match's record by id and sorts
 * them all (on SQLite once more per skip hop). Measured at 1M payments, the page 6,640 rows from
 * the end of `channel=web` (66,482): PostgreSQL walked 225 ms against 300 ms driven, SQLite
 * ~100 ms against 309 ms.
 */
export const DRIVEN_ENTRY_IN_ROWS = 2;

/**
 * Whether walking the list's index and probing each row costs less than driving from the
 * entries, for a page `skip` rows from the nearer end of the list: `size` the tenant's records
 * in the list, `entries` the searched values' entries (the least over keys). The walk reads about
 * (skip + per_page) × size ÷ entries rows, the drive `entries` entries.
 */
export function probeIsCheaper(counts: { size: number; entries: number }, skip: number, perPage: number): boolean {
  const { size, entries } = counts;
  return entries > 0 && (skip + perPage) * size <= DRIVEN_ENTRY_IN_ROWS * entries * entries;
}
