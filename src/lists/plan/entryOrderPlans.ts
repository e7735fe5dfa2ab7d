import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope } from '../request/listScope.ts';
import { METADATA_ENTRY_TABLE } from '../counters/metadataValueCounts.ts';
import { testedInEntries } from './testedInEntries.ts';

/**
 * Whether a metadata search reads its page in its entries' order: the entries are kept in the list's order and
 * carry what lists filter by, so the page is a run of them and no record is read but the page's, at any depth
 * (decisions 0023, 0027, 0030; docs/query-plans.md#metadata-search). A search the entries cannot answer (one
 * account's list, another sort, a filter they do not carry) keeps metadataPlans.ts' plans.
 */
export function readsInEntryOrder(scope: ListScope, query: ListQuery): boolean {
  const search = query.conditions.filter((c) => c.match === 'metadata');
  const others = query.conditions.filter((c) => c.match !== 'metadata');
  const statusOnly = others.length <= 1 && others.every((c) => c.match === 'in' && c.column === 'status');
  return (
    search.length > 0 &&
    (statusOnly || others.every((c) => testedInEntries(search[0].column, c))) &&
    scope.accountId === undefined &&
    scope.endpointId === undefined &&
    query.sort.length === 1 &&
    ordersEntries(search[0].column, query.sort[0].column) &&
    !(query.entriesBehind && query.sort[0].column === 'amount')
  );
}

/**
 * Whether the entries of `entryTable` are kept in the order of `column` too: created_at, every
 * list's (the primary key, migration 0023); a payment's amount (`payment_metadata_amount_order`,
 * migration 0032).
 */
export function ordersEntries(entryTable: string, column: string): boolean {
  return column === 'created_at' || (column === 'amount' && entryTable === METADATA_ENTRY_TABLE.payments);
}

/** Which searched keys (by their number among the metadata conditions) could lead: every one, the fewest entries chosen. */
export function entryOrderLeads(query: ListQuery): number[] {
  return query.conditions.filter((c) => c.match === 'metadata').map((_, i) => i);
}

/** The lead with the fewest entries among `counts` (entryLeadCountsSelect's row); the first such on a tie. */
export function entryOrderLead(query: ListQuery, counts: Record<string, number | string>): number {
  const leads = entryOrderLeads(query);
  return leads.reduce((best, i) => (Number(counts[`e${i}`]) < Number(counts[`e${best}`]) ? i : best), leads[0]);
}
