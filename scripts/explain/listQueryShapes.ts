import type { Kysely, Compilable } from 'kysely';
import type { Database, Dialect } from '../../src/db/schema.ts';
import { parseQueryString } from '../../src/http/parseQueryString.ts';
import { accountListSpec } from '../../src/accounts/accountListSpec.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import {
  afterBoundarySelect,
  countSelect,
  deferredJoinPageSelect,
  hopSelect,
  offsetPageSelect,
  sortedIdsPageSelect,
  type ListScope,
  type ListTable,
} from '../../src/lists/sql/listPageQueries.ts';
import { parseListQuery, type RawListQuery } from '../../src/lists/request/parseListQuery.ts';
import { withRangesWritten, withSortUnindexed } from '../../src/lists/plan/rangePlans.ts';
import { withMetadataProbed } from '../../src/lists/plan/metadataPlans.ts';
import { metadataShareSelect, metadataTotalSelect } from '../../src/lists/sql/metadataPlanStatement.ts';
import { readsInEntryOrder } from '../../src/lists/plan/entryOrderPlans.ts';
import { totalOrder, reversed } from '../../src/lists/plan/totalOrder.ts';
import { DEFERRED_JOIN_FROM } from '../../src/lists/plan/listTuning.ts';
import { withKeyedWriting, keyedConditionOf } from '../../src/lists/plan/keyedPlans.ts';
import { offsetPageQuery, bucketPageQuery, listTotalSelect } from '../../src/lists/sql/listStatements.ts';

/**
 * The list queries the API sends, one per filter and sort it offers. `ordered`: an index
 * yields the rows in page order, so a page costs the same however many rows match; the other
 * shapes are still index-backed (no table read whole) but sort what matches.
 */
export interface ListShape {
  table: ListTable;
  /** What a client would ask for, path and query. */
  request: string;
  perAccount: boolean;
  query: string;
  ordered: boolean;
  /**
   * A range on another column than the sort's first, most rows in range: SQLite's page walks
   * this index in the sort's order (src/lists/plan/rangePlans.ts), the range tested row by row.
   */
  walks?: string;
  /** The same shape, few rows in range: the index of the range's column that SQLite's page reads and sorts the ids in. */
  rangeIndex?: string;
  /**
   * A metadata search: the index its page walks when the searched values are common, each row's
   * entry probed (src/lists/plan/metadataPlans.ts).
   */
  probes?: string;
  /**
   * A filter on a column of many values (a card's last four): the index SQLite's page walks when
   * the counts choose the walk, the filter tested row by row (src/lists/sql/keyedFilters.ts); the
   * total and the sorted ids come from the filter's own index.
   */
  keyed?: { walks: string; index: string };
}

const SOME_ACCOUNT = 'acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C';

const payments = (query: string, ordered = true): ListShape => ({ table: 'payments', request: `/v3/payments?${query}`, perAccount: false, query, ordered });
const accountPayments = (query: string, ordered = true): ListShape => ({
  table: 'payments',
  request: `/v3/accounts/{account}/payments?${query}`,
  perAccount: true,
  query,
  ordered,
});
/** A keyed filter's shape whose SQLite page walks `walks` when the filter holds many rows, else reads `index` (keyedFilters.ts). */
const keying = (shape: ListShape, walks: string, index: string): ListShape => ({ ...shape, keyed: { walks, index } });
/** A shape whose SQLite page walks `index` when most of its rows are in range (rangePlans.ts). */
const walking = (shape: ListShape, index: string, rangeIndex: string): ListShape => ({ ...shape, walks: index, rangeIndex });
/** A metadata search whose page walks `index` when its values are common, probing the entries (metadataPlans.ts). */
const probing = (shape: ListShape, index: string): ListShape => ({ ...shape, probes: index });
const accounts = (query: string, ordered = true): ListShape => ({ table: 'accounts', request: `/v3/accounts?${query}`, perAccount: false, query, ordered });

export const LIST_SHAPES: ListShape[] = [
  payments(''),
  payments('sort=-created_at'),
  payments('sort=amount'),
  payments('sort=-amount'),
  payments('filter[status]=failed'),
  payments('filter[status]=failed&sort=-amount'),
  payments('filter[status]=failed,refunded', false),
  payments('filter[currency]=EUR'),
  payments('filter[card_brand]=visa'),
  payments('filter[currency]=EUR&sort=amount'),
  payments('filter[card_brand]=visa&sort=-amount'),
  // Ranges on a bucketed slice: the total from bucket counts and the rows of the two edge buckets.
  // Not `ordered`: SQLite, which keeps no statistics, reads a range on both ends from the
  // tenant's index of the range's column rather than the slice's (docs/query-plans.md).
  payments('filter[status]=succeeded&filter[created_at][gte]=2026-01-01&filter[created_at][lt]=2026-02-01', false),
  payments('filter[currency]=EUR&filter[amount][gte]=1000&filter[amount][lt]=5000&sort=amount', false),
  payments('filter[currency]=EUR&filter[amount][gte]=1000&sort=amount', false),
  payments('filter[card_brand]=visa,amex&filter[created_at][gte]=2026-01-01T00:00:00.5Z&sort=-created_at', false),
  payments('filter[card_last4]=4242'),
  payments('filter[reference]=ord_1001'),
  keying(payments('filter[card_last4]=1097,3790,0045&filter[status]=succeeded', false), 'payments_tenant_status_created', 'payments_tenant_last4'),
  keying(payments('filter[card_last4]=1097&sort=-amount', false), 'payments_tenant_amount', 'payments_tenant_last4'),
  keying(payments('filter[card_last4]=1097&filter[amount][gte]=1000&sort=amount', false), 'payments_tenant_amount', 'payments_tenant_last4'),
  payments(`filter[account_id]=${SOME_ACCOUNT}`),
  payments('filter[created_at][gte]=2026-01-01'),
  payments('filter[amount][gte]=1000&sort=amount'),
  walking(payments('filter[amount][gte]=1000', false), 'payments_tenant_created', 'payments_tenant_amount'),
  walking(
    payments('filter[currency]=EUR&filter[amount][gte]=1000&filter[amount][lt]=10000', false),
    'payments_tenant_currency_created',
    'payments_tenant_currency_amount',
  ),
  walking(
    payments('filter[status]=succeeded&filter[created_at][gte]=2026-01-01&filter[created_at][lt]=2026-02-01&sort=-amount', false),
    'payments_tenant_status_amount',
    'payments_tenant_status_created',
  ),
  // An amount range off every class edge, sorted by created_at: its deep page also reads the sliver
  // between its end and the class edge, in the range's index (src/lists/plan/amountClassRanges.ts).
  payments('filter[amount][gte]=1510', false),
  payments('filter[currency]=EUR&filter[amount][gte]=2345', false),
  // Metadata search: the tenant's matching records from the entry table's primary key, then sorted.
  probing(payments('filter[metadata][channel]=web', false), 'payments_tenant_created'),
  probing(payments('filter[metadata][channel]=web,pos&filter[status]=succeeded&sort=-amount', false), 'payments_tenant_status_amount'),
  probing(payments('filter[metadata][channel]=web&filter[metadata][tier]=gold', false), 'payments_tenant_created'),
  // Beside a currency or an amount range, which the entries carry (migration 0030): counted, and in created_at order paged, in the entries.
  probing(payments('filter[metadata][channel]=web&filter[currency]=EUR', false), 'payments_tenant_currency_created'),
  probing(payments('filter[metadata][channel]=web&filter[amount][gte]=1000&sort=-amount', false), 'payments_tenant_amount'),
  accountPayments(''),
  accountPayments('sort=-amount'),
  accountPayments('filter[status]=succeeded'),
  accountPayments('filter[status]=failed&sort=-created_at'),
  accounts(''),
  accounts('sort=name'),
  accounts('sort=-name'),
  accounts('filter[status]=active'),
  accounts('filter[currency]=EUR'),
  accounts('filter[created_at][lt]=2026-01-01'),
  accounts('filter[email]=ada@example.com'),
  accounts('filter[name]=ada', false),
  probing(accounts('filter[metadata][segment]=business', false), 'accounts_tenant_created'),
];

const SAMPLE_VALUES: Record<string, string | number> = {
  created_at: '2026-01-01T00:00:00.000Z',
  amount: 1000,
  name: 'm',
  id: 'pay_01JDQ7ZK3V6M8Y2W4T9N5R1B0C',
};

export function parsedQuery(shape: ListShape) {
  const spec = shape.table === 'payments' ? paymentListSpec : accountListSpec;
  return parseListQuery(spec, parseQueryString(shape.query) as RawListQuery);
}

/** The columns an index must be bounded by for the shape's pages to cost the same at any size. */
export function boundColumns(shape: ListShape): string[] {
  return ['tenant_id', ...(shape.perAccount ? ['account_id'] : []), ...parsedQuery(shape).conditions.map((c) => c.column)];
}

/**
 * Each query of a shape: its total (maintained count or count(*)), its page by every strategy
 * (from either end of the list), a skip hop, and the bucket counts a deep page reads.
 */
export function shapeQueries(
  db: Kysely<Database>,
  tenantId: string,
  shape: ListShape,
  dialect: Dialect,
): Array<{ label: string; strategy?: string; query: Compilable }> {
  const query = parsedQuery(shape);
  const scope: ListScope = { tenantId, ...(shape.perAccount ? { accountId: SOME_ACCOUNT } : {}) };
  const boundary = totalOrder(query.sort).map((k) => SAMPLE_VALUES[k.column]);
  const total = listTotalSelect(db, dialect, shape.table, scope, query);
  const walked = withRangesWritten(query, 'unindexed');
  const out: Array<{ label: string; strategy?: string; query: Compilable }> = [{ label: `total (${total.from})`, query: total.select }];
  // A metadata search's total counted along the list without it, each row probed, and from the entries of its second key (metadataPlanStatement.ts).
  if (shape.probes) {
    // What its plans are chosen from: the searched values' maintained counts (metadata_value_counts) and list_counts.
    out.push({ label: 'plan counts (metadata_value_counts, list_counts)', query: metadataShareSelect(db, shape.table, scope, query) });
    out.push({ label: 'total (the list without the search, each row probed)', query: metadataTotalSelect(db, dialect, shape.table, scope, query, 'probe') });
    const keys = query.conditions.filter((c) => c.match === 'metadata').length;
    if (keys > 1) out.push({ label: 'total (from the second key’s entries)', query: metadataTotalSelect(db, dialect, shape.table, scope, query, { lead: 1 }) });
  }
  for (const [end, q] of [
    ['', query],
    ['-from-end', reversed(query)],
  ] as const) {
    out.push({ label: `offset${end}`, strategy: `offset${end}`, query: offsetPageSelect(db, shape.table, scope, q, 100, 100) });
    out.push({
      label: `deferred-join${end}`,
      strategy: `deferred-join${end}`,
      query: deferredJoinPageSelect(db, shape.table, scope, q, DEFERRED_JOIN_FROM * 10, 100),
    });
    out.push({ label: `skip-hops${end} (one hop)`, strategy: `skip-hops${end}`, query: hopSelect(db, shape.table, scope, q, boundary, 10_000) });
    out.push({ label: `skip-hops${end} (the page)`, strategy: `skip-hops${end}`, query: afterBoundarySelect(db, shape.table, scope, q, boundary, 100) });
    // Bucketed lists: the bucket counts, the page's first row and the page, in one statement.
    const bucketed = bucketPageQuery(db, dialect, shape.table, scope, q, { page: 51, perPage: 100, offset: 5000 });
    // A ranged list's statement also counts the range's edge rows (where the slice starts in the
    // list, rangedTotal.ts): short index range scans that a planner on empty test tables may read
    // through another index and a filter, so its plan is held to no full scan only.
    const ranged = total.from === 'list_buckets and edge rows';
    if (bucketed) out.push({ label: `buckets${end} (the whole page as one statement)`, strategy: ranged ? undefined : `buckets${end}`, query: bucketed });
    // PostgreSQL: the first pages' one statement holds the walk and the range's index, its counts choosing (rangePlanStatement.ts).
    if (shape.walks && dialect === 'postgres') {
      const chosen = offsetPageQuery(db, dialect, shape.table, scope, q, { page: 2, perPage: 100, offset: 100 });
      out.push({ label: `offset${end}, both plans in one statement`, query: { compile: () => chosen } });
    }
    // A metadata search of common values: the page walks the list's index, each row's entry probed (metadataPlans.ts).
    if (shape.probes) {
      const p = withMetadataProbed(q);
      out.push({ label: `offset${end}, probing the entries`, strategy: `probe${end}`, query: offsetPageSelect(db, shape.table, scope, p, 100, 100) });
      out.push({
        label: `deferred-join${end}, probing`,
        strategy: `probe${end}`,
        query: deferredJoinPageSelect(db, shape.table, scope, p, DEFERRED_JOIN_FROM * 10, 100),
      });
      out.push({ label: `skip-hops${end} (one hop), probing`, strategy: `probe${end}`, query: hopSelect(db, shape.table, scope, p, boundary, 10_000) });
      out.push({ label: `skip-hops${end} (the page), probing`, strategy: `probe${end}`, query: afterBoundarySelect(db, shape.table, scope, p, boundary, 100) });
      if (readsInEntryOrder(scope, q)) {
        // One value in created_at order over the whole list: any page in the entries' order, one statement on both databases (entryOrderPage.ts).
        const deep = offsetPageQuery(db, dialect, shape.table, scope, q, { page: 501, perPage: 100, offset: 50_000 });
        out.push({ label: `entries${end} (the page in the entries' order, one statement)`, strategy: `entries${end}`, query: { compile: () => deep } });
      } else if (dialect === 'postgres') {
        const chosen = offsetPageQuery(db, dialect, shape.table, scope, q, { page: 2, perPage: 100, offset: 100 });
        out.push({ label: `offset${end}, both plans in one statement (metadataPlanStatement.ts)`, query: { compile: () => chosen } });
      }
    }
    // SQLite, a keyed filter (keyedFilters.ts): its total and sorted ids from its own index, or the sort's index walked.
    const keyedColumn = shape.keyed && dialect === 'sqlite' ? keyedConditionOf(shape.table, scope, query)?.column : undefined;
    if (keyedColumn) {
      if (!end)
        out.push({
          label: 'total, the keyed filter’s index',
          strategy: 'keyed',
          query: countSelect(db, shape.table, scope, withKeyedWriting(query, keyedColumn, false)),
        });
      const sorted = withKeyedWriting(withSortUnindexed(q), keyedColumn, false);
      out.push({ label: `page${end}, the keyed filter’s ids sorted`, strategy: 'keyed', query: sortedIdsPageSelect(db, shape.table, scope, sorted, 100, 100) });
      const walk = withKeyedWriting(withRangesWritten(q, 'unindexed'), keyedColumn, true);
      out.push({ label: `offset${end}, walking the sort's index`, strategy: 'keyed-walk', query: offsetPageSelect(db, shape.table, scope, walk, 100, 100) });
    }
    // SQLite, most rows in range: the page walks the sort's index (rangePlans.ts).
    if (shape.walks && dialect === 'sqlite') {
      const w = end ? reversed(walked) : walked;
      out.push({ label: `offset${end}, walking the sort's index`, strategy: `walk${end}`, query: offsetPageSelect(db, shape.table, scope, w, 100, 100) });
      out.push({ label: `skip-hops${end} (one hop), walking`, strategy: `walk${end}`, query: hopSelect(db, shape.table, scope, w, boundary, 10_000) });
      out.push({ label: `skip-hops${end} (the page), walking`, strategy: `walk${end}`, query: afterBoundarySelect(db, shape.table, scope, w, boundary, 100) });
      // Few rows in range: the page's ids read from the range's index and sorted there, then its rows by primary key.
      const r = withSortUnindexed(end ? reversed(query) : query);
      out.push({
        label: `page${end}, the range's index read and its ids sorted`,
        strategy: `range${end}`,
        query: sortedIdsPageSelect(db, shape.table, scope, r, 100, 100),
      });
    }
  }
  return out;
}
