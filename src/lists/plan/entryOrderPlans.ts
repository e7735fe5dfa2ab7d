import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope } from '../request/listScope.ts';
import { METADATA_ENTRY_TABLE } from '../counters/metadataValueCounts.ts';
import { testedInEntries } from './testedInEntries.ts';

/**
 * A metadata search read in its entries' order (docs/query-plans.md#metadata-search): the entries
 * of a value are kept in the list's default order, (tenant_id, key, value, created_at, record_id)
 * (migration 0023), so a search with one value of a key, over the tenant's whole list, sorted
 * by created_at (either direction; ties on id in the same direction), has its page in that key
 * alone: the skip over narrow index entries (index-only on both databases), then the page's
 * records read by id. No matching record is read but the page's, nothing is sorted but the page.
 * Its total is the value's maintained count (migration 0020), read in the same statement.
 *
 * With an any-of status filter beside it (migration 0024) the same: the entries are walked in
 * order and each tested for its status (a payment's in the entry itself since 0032; an account's
 * record by id, one row, so a page costs (skip + per_page) × entries ÷ matches of those), its
 * total the value's count in those statuses.
 *
 * With other keys beside it (`filter[metadata][channel]=web&filter[metadata][tier]=gold`), the
 * entries of one key (the lead: the one with the fewest, entryOrderLead) are
 * walked so, each probed for the record's entry of every other key (its value_record index, one
 * descent, index-only): no record is read but the page's. The total is counted the same way,
 * along the lead's entries (no counts hold a pair of keys), where it read each of the lead's
 * records (1M payments: `channel=web & tier=gold` 0.5–1.2 s, the records read at random; 24 ms so).
 *
 * With a created_at range beside them (no status filter), the same entries bounded by the range
 * in the entries' own index, which carries each record's created_at: the page is a run of them,
 * and the total is counted there, index-only, no record read (1M payments, `channel=web &
 * created_at ≥ 2026-03-01`: the total read each of 66,482 records by id, 0.6 s, and a deep page
 * walked the list's index probing each row, 0.5 s).
 *
 * With a payment's currencies, card brands or an amount range beside them (a created_at range
 * too), the same: each entry carries its payment's currency, card_brand and amount (migration
 * 0030), tested in the entries' own rows (entryConditions.ts), so the page is the run of those
 * that pass and the total is counted along them, no payment read but the page's (1M payments,
 * `channel=web & currency=EUR`: 1.2 s on PostgreSQL, 0.34 s on SQLite, each entry's payment read;
 * 39 ms and 12 ms so). Since migration 0032 a payment's entries carry its status too (rewritten
 * as it moves), so a payment's statuses are tested so, beside any of those. Accounts' entries
 * carry nothing: their currency and status change (an account's statuses: its record tested).
 *
 * A payment search sorted by amount is read so too, from the entries' amount_order index (migration
 * 0032; ties on id in the same direction, as the list's). Several values of the lead: one run per
 * value, each in the sort's order, merged (1M payments on SQLite, `channel=web,pos & status=
 * succeeded`, sort=-amount, the middle page: 1.2 s walking the amount index and probing each
 * payment's entry; 17 ms so).
 *
 * Every other metadata search (a filter the entries do not answer, one account's list, a sort of
 * several keys or by a column the entries are not ordered by) keeps metadataPlans.ts' plans.
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
