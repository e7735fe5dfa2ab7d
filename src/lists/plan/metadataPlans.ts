import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope } from '../request/listScope.ts';

/**
 * How a metadata search's page is found (docs/query-plans.md#metadata-search): drive from the entries (cheap for a
 * rare value) or walk the list's index probing each row's entry (cheap for a common one). Neither planner can tell
 * which from the statement, so the maintained value counts choose, as rangePlans.ts' counts do (decision 0020);
 * under several keys or other filters the matches are taken to be the entries. One value in created_at order
 * needs neither: its pages are read in the entries' own order (entryOrderPlans.ts, decision 0023).
 */

/** Whether a list query searches metadata. */
export function searchesMetadata(query: ListQuery): boolean {
  return query.conditions.some((c) => c.match === 'metadata');
}

/**
 * `query` with every metadata condition written as a probe of each row (same rows); `dated` on
 * PostgreSQL, which reads each row it tests: the probe takes the row's created_at too
 * (applyListQuery.ts), one exact descent of the entries' primary key.
 */
export function withMetadataProbed(query: ListQuery, dated = false): ListQuery {
  const written = dated ? ('dated probe' as const) : ('probe' as const);
  return { ...query, conditions: query.conditions.map((c) => (c.match === 'metadata' ? { ...c, written } : c)) };
}

/**
 * `query` driven from the entries of its searched key number `lead` (the one with the fewest):
 * every other key probed from each of those entries (`heldWith`, leadEntries.ts: index-only),
 * so that only the records holding them all are read, and no planner drives from the others.
 */
export function withMetadataLead(query: ListQuery, lead: number): ListQuery {
  const keys = query.conditions.filter((c) => c.match === 'metadata');
  const heldWith = keys.filter((_, i) => i !== lead).map((c) => ({ key: c.key, values: c.values }));
  return {
    ...query,
    conditions: query.conditions.flatMap((c): ListQuery['conditions'] =>
      c.match !== 'metadata' ? [c] : c === keys[lead] ? [heldWith.length > 0 ? { ...c, heldWith } : c] : [],
    ),
  };
}

/**
 * Whether the list's total is a sum of maintained value counts (migrations 0020, 0024): its
 * conditions are one metadata key and at most an any-of status filter, over the tenant's whole
 * list. A record has one value per key and one status, so its entries of any-of values in any-of
 * statuses are disjoint and each is one record (a record's entries are written, deleted and moved
 * between statuses in the same transaction as the record: metadataEntries.ts, metadataValueCounts.ts).
 */
export function totalIsValueCount(scope: ListScope, query: ListQuery): boolean {
  const metadata = query.conditions.filter((c) => c.match === 'metadata');
  const others = query.conditions.filter((c) => c.match !== 'metadata');
  return (
    metadata.length === 1 &&
    others.every((c) => c.match === 'in' && c.column === 'status') &&
    others.length <= 1 &&
    scope.accountId === undefined &&
    scope.endpointId === undefined
  );
}

/** The statuses an any-of status filter of `query` keeps, if it has one. */
export function searchedStatuses(query: ListQuery): string[] | undefined {
  const status = query.conditions.find((c) => c.match === 'in' && c.column === 'status');
  return status?.match === 'in' ? status.values : undefined;
}

/**
 * What a driven entry costs in rows walked: the drive reads each match's record by id and sorts
 * them all (on SQLite once more per skip hop). Measured at 1M payments, the page 6,640 rows from
 * the end of `channel=web` (66,482): PostgreSQL walked 225 ms against 300 ms driven, SQLite
 * ~100 ms against 309 ms.
 */
export const DRIVEN_ENTRY_IN_ROWS = 2;

/**
 * Whether walking the list's index and probing each row costs less than driving from the entries, for a page
 * `skip` rows from the nearer end: the walk reads about (skip + per_page) × size ÷ matches rows, the drive
 * `entries` entries, each record read. `matches` is exact under totalIsValueCount, else taken to be `entries`;
 * `size` is an upper bound when a status index narrows the walk (decision 0020).
 */
export function probeIsCheaper(counts: { size: number; entries: number; matches: number }, skip: number, perPage: number, keys = 1): boolean {
  const { size, entries, matches } = counts;
  return matches > 0 && (skip + perPage) * size * keys <= DRIVEN_ENTRY_IN_ROWS * entries * matches;
}

/**
 * Which way a metadata search's total is counted (metadataCountOf): the maintained value counts
 * (`entries`: of its statuses when it filters some), the list without its search with each row
 * probed, or from the entries of the searched key number `lead`.
 */
export type MetadataCount = 'entries' | 'probe' | { lead: number };

/**
 * How the total is counted, from the counts (metadataShareSelect): the value counts when the
 * search of one key is the list's only condition but a status filter (totalIsValueCount); else along the list without its
 * search when list_counts says it holds no more rows than the fewest entries, else from those.
 */
export function metadataCountOf(scope: ListScope, query: ListQuery, counts: { entries: number; lead: number; slice: number | null }): MetadataCount {
  if (totalIsValueCount(scope, query)) return 'entries';
  return counts.slice !== null && counts.slice <= counts.entries ? 'probe' : { lead: counts.lead };
}
