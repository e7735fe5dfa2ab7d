import { sql, type Compilable, type CompiledQuery, type Expression, type Kysely, type QueryCreator } from 'kysely';
import type { ReadRouting } from '../db/readReplicas.ts';
import type { Db } from '../db/database.ts';
import type { Database, Dialect } from '../db/schema.ts';
import { isBucketed, type BucketLevel } from './counters/sortBuckets.ts';
import { PREPARED } from '../db/preparedStatements.ts';
import { BOUNDED, READ_AT_ONCE } from '../db/nodeSqliteDialect.ts';
import { streamRowTexts } from '../db/streamRowTexts.ts';
import { guardedStatement, type StatementGuard } from '../db/guardedStatement.ts';
import type { PageParams } from './request/pageParams.ts';
import { skipFromNearerEnd } from './plan/skipFromNearerEnd.ts';
import { boundaryOf, type Boundary } from './sql/keyset.ts';
import { bucketDescent, withClause, type SliverRows } from './sql/findInBuckets.ts';
import { marked, StatementTemplates, type SlotMaker } from '../db/statementTemplates.ts';
import type { BucketSegment } from './counters/rangeBuckets.ts';
import {
  afterBoundarySelect,
  pageFromRowSelect,
  countedTotalSelect,
  countSelect,
  rangedTotalSelect,
  rangeShareSelect,
  rowsBeforeRangeSelect,
  signedRowsPerBucketSelect,
  withoutRanges,
  deferredJoinPageSelect,
  hopSelect,
  offsetPageSelect,
  sortedIdsPageSelect,
  reversed,
  type ListScope,
  type ListTable,
} from './sql/listPageQueries.ts';
import { bucketSliceKind, countedSlice, narrowedDimensions, type ListSlice } from './plan/listSlice.ts';
import { amountClassPlanOfQuery, type AmountSliver } from './plan/amountClassRanges.ts';
import { amountClassSortKey } from './counters/amountClassBuckets.ts';
import { DIMENSIONS } from './counters/countedSlices.ts';
import { rangedTotalOf, type RangedTotal } from './plan/rangedTotal.ts';
import {
  hasRangeOffTheSort,
  sliversAreCheaper,
  sqliteSortCost,
  walkIsCheaper,
  walkServesOrder,
  withLowEndClosed,
  withRangesWritten,
  withSortUnindexed,
  withStartSideUnindexed,
} from './plan/rangePlans.ts';
import { rangePlanPageStatement } from './sql/rangePlanStatement.ts';
import { hasLiteral, picksIndexByValues, withValuesLiteral } from './plan/valuePlans.ts';
import { probeIsCheaper, searchesMetadata, totalIsValueCount, withMetadataLead, withMetadataProbed } from './plan/metadataPlans.ts';
import { metadataPlanPageStatement, metadataShareSelect, metadataTotalSelect } from './sql/metadataPlanStatement.ts';
import { entriesBehind } from './sql/entriesCurrent.ts';
import { entryLeadCountsSelect, entryOrderPageStatement } from './sql/entryOrderPage.ts';
import type { ListQuery } from './request/parseListQuery.ts';
import { keyedCounts } from './sql/keyedFilters.ts';
import { withLeadDimension } from './plan/leadDimension.ts';
import { amountOrderPage } from './sql/amountOrderPage.ts';
import { metadataCountOf } from './plan/metadataPlans.ts';
import { readsInEntryOrder } from './plan/entryOrderPlans.ts';
import { totalOrder } from './plan/totalOrder.ts';
import { entryOrderLead } from './plan/entryOrderPlans.ts';
import { DEFERRED_JOIN_FROM } from './plan/listTuning.ts';
import { amountOrderPlaceable } from './plan/amountOrderClasses.ts';
import { SKIP_HOP } from './plan/listTuning.ts';
import type { MetadataCount } from './plan/metadataPlans.ts';
import { keyedConditionOf } from './plan/keyedPlans.ts';
import { withKeyedWriting } from './plan/keyedPlans.ts';
import type { BucketSearch } from './plan/bucketSearch.ts';
import { entryOrderLeads } from './plan/entryOrderPlans.ts';
import { keyedPlanOf } from './plan/keyedPlans.ts';
import { readsMovingColumns } from './plan/movingColumns.ts';
import { withEntriesBehind } from './plan/movingColumns.ts';
import type { ClassPlacement } from './plan/amountOrderClasses.ts';
import type { PageStrategy } from './plan/listTuning.ts';

export type { ListScope, ListTable } from './sql/listPageQueries.ts';
export type { PageStrategy } from './plan/listTuning.ts';

/** Where plain OFFSET stops and the deep ways start; the defaults are what the benchmark chose. */
export interface ListTuning {
  /** Skips below this are plain OFFSET (from the nearer end). */
  plainOffsetUpTo: number;
  /** SQLite's skip hops for lists without bucket counts. */
  skipHop: number;
  /** A metadata search's plan (metadataPlans.ts): chosen by its counts (absent), or always one of them (tests). */
  metadataPlan?: 'probe' | 'drive';
  /** A created_at range in amount order: its deep pages placed by the amount classes by cost (absent), or always or never (tests). */
  classPlacement?: ClassPlacement;
}

export const DEFAULT_TUNING: ListTuning = { plainOffsetUpTo: DEFERRED_JOIN_FROM, skipHop: SKIP_HOP };

/** The database (which knows its dialect) and how deep pages are found. */
export interface ListContext {
  db: Db;
  tuning?: ListTuning;
  /** Read replicas (db/readReplicas.ts): where a tenant's list runs; `db` alone when absent. */
  reads?: ReadRouting;
}

export interface ListPage {
  total: number;
  /** Each row as its stored JSON text, in order. */
  rows: string[];
  strategy: PageStrategy;
}

/** Takes a page's rows one at a time, each as its stored JSON text, in the page's order. */
export type PageRowSink = (row: string) => void;

/** A page whose rows went to a sink: how many, of how many in all, found how. */
export interface WrittenPage {
  total: number;
  count: number;
  strategy: PageStrategy;
}

/** The rows of a page that one statement answers, each with the total (PostgreSQL: one row with a null resource when there are none). */
interface RowWithTotal {
  total: number | string | null;
  resource: string | null;
}

/** The page in the rows of one statement; undefined when none came (SQLite's form then says nothing of the total). */
function pageOfRows(rows: RowWithTotal[], offset: number, how: PageStrategy): ListPage | undefined {
  if (rows.length === 0) return undefined;
  const total = Number(rows[0].total);
  const resources = rows[0].resource === null ? [] : rows.map((r) => r.resource as string);
  return { total, rows: resources, strategy: offset >= total ? 'past-end' : how };
}

interface ListRequest {
  table: ListTable;
  scope: ListScope;
  query: ListQuery;
  /** A counted slice (no other condition): its total from list_counts. */
  slice: ListSlice | undefined;
  /** A bucketed slice narrowed by a range: its total from bucket counts and the range's edge rows. */
  ranged?: RangedTotal;
  /**
   * SQLite, where counts choose a ranged list's plan (rangePlans.ts): true, the page's rows walk
   * the sort's index, the range tested row by row; false, they are read from the range's index and
   * sorted; undefined, no counts choose. The total is read as ever.
   */
  walk?: boolean;
  /** PostgreSQL: the first pages' one statement holds both plans and chooses by its counts (rangePlanStatement.ts). */
  choose?: boolean;
  /** PostgreSQL: a first page's OFFSET is skipped in the sort's index alone (skipsInIndex). */
  skipInIndex?: boolean;
  /** A metadata search whose page walks the list's index and probes the entries for each row (metadataPlans.ts); else the entries drive. */
  probe?: boolean;
  /** PostgreSQL: a metadata search's first pages hold both plans in one statement, chosen by its counts (metadataPlanStatement.ts); a tuning may fix one. */
  chooseMetadata?: 'counts' | 'probe' | 'drive';
  /** How a metadata search's total is counted (metadataCountOf), once its counts were read. */
  countBy?: MetadataCount;
  /** A metadata search driven from the entries: which searched key they are read from (the fewest), the others probed. */
  lead?: number;
  /** A search of one value in created_at order over the whole list: any page read in its entries' order, in one statement (entryOrderPage.ts). */
  entryOrder?: boolean;
  /** SQLite: the column of a keyed filter whose counts chose its plan (keyedFilters.ts): its index counts the total; `walk` says how the page is read. */
  keyed?: string;
}

/**
 * The query a page's rows are read by: the list's, its range written unindexed when the page walks
 * the sort's index, its metadata search written as probes when the page walks the list's index.
 */
function rowsQueryOf(dialect: Dialect, list: ListRequest): ListQuery {
  const ordered = list.walk === undefined ? list.query : list.walk ? withRangesWritten(list.query, 'unindexed') : withSortUnindexed(list.query);
  const query = list.keyed === undefined ? ordered : withKeyedWriting(ordered, list.keyed, list.walk);
  // PostgreSQL reads each row it tests: its probes take the row's created_at too (withMetadataProbed).
  if (list.probe) return withMetadataProbed(query, dialect === 'postgres');
  return list.lead === undefined ? query : withMetadataLead(query, list.lead);
}

/**
 * The list's query as a dialect's statement should be written (rangePlans.ts): on PostgreSQL a
 * range on another column than the sort's first goes into the SQL text as a literal, so the
 * plan is made for its value (deep pages, and lists whose plan no counts choose).
 */
function plannedQuery(dialect: Dialect, query: ListQuery): ListQuery {
  return dialect === 'postgres' && hasRangeOffTheSort(query) ? withRangesWritten(query, 'literal') : query;
}

/**
 * Whether a ranged list's page has its plan chosen from counts (rangePlans.ts): a range on
 * another column than the sort's first, on a bucketed slice whose index gives the sort's order.
 */
function plansByCounts(list: ListRequest): boolean {
  const { ranged, query } = list;
  return ranged !== undefined && hasRangeOffTheSort(query) && isBucketed(query.sort[0].column) && walkServesOrder(ranged.slice, query);
}

/**
 * `list` with its query as plannedQuery writes it; on PostgreSQL a list counted row by row that
 * several indexes serve with its filter values as literals (valuePlans.ts), on SQLite a list of
 * several dimensions read in the leading one's index, which carries the others (leadDimension.ts):
 * how it is written, not which rows match, so its slice and range stand.
 */
function plannedList(dialect: Dialect, list: ListRequest): ListRequest {
  const query = plannedQuery(dialect, dialect === 'sqlite' ? withLeadDimension(list.table, list.scope, list.query) : list.query);
  const byValues = dialect === 'postgres' && !list.slice && !list.ranged && !searchesMetadata(query) && picksIndexByValues(query);
  return { ...list, query: byValues ? withValuesLiteral(query) : query };
}

/**
 * The list a page's one statement reads: on PostgreSQL, a list whose plan counts choose keeps its
 * range as parameters and chooses in the statement (named, prepared: rangePlanStatement.ts); any
 * other, as plannedQuery writes it.
 */
function statementList(dialect: Dialect, list: ListRequest, tuning: ListTuning): ListRequest {
  if (inEntryOrder(list, tuning)) return { ...list, entryOrder: true };
  if (dialect === 'postgres' && searchesMetadata(list.query)) return { ...plannedList(dialect, list), chooseMetadata: tuning.metadataPlan ?? 'counts' };
  return dialect === 'postgres' && plansByCounts(list) ? { ...list, choose: true } : plannedList(dialect, list);
}

/**
 * Whether a list's pages, any depth, are read in its metadata entries' order (entryOrderPage.ts);
 * not when a tuning fixes one of the other plans (tests of those plans).
 */
function inEntryOrder(list: ListRequest, tuning: ListTuning): boolean {
  return tuning.metadataPlan === undefined && readsInEntryOrder(list.scope, list.query);
}

/** A metadata search's counts (metadataShareSelect), read before its statements: what its plans are chosen from. */
async function metadataCounts(db: Kysely<Database>, list: ListRequest) {
  const counts = await metadataShareSelect(db, list.table, list.scope, list.query).executeTakeFirstOrThrow();
  return {
    entries: Number(counts.entries),
    matches: Number(counts.matches),
    lead: Number(counts.lead),
    size: Number(counts.size),
    slice: counts.slice === null ? null : Number(counts.slice),
  };
}

/**
 * Whether a metadata search's page walks the list's index and probes the entries (metadataPlans.ts),
 * `skip` rows from the nearer end, by its counts (or as the tuning fixes it). Only ever a choice
 * of plan: both read the same rows.
 */
function probesEntries(
  tuning: ListTuning,
  list: ListRequest,
  counts: { entries: number; matches: number; size: number },
  skip: number,
  perPage: number,
): boolean {
  if (tuning.metadataPlan) return tuning.metadataPlan === 'probe';
  return probeIsCheaper(counts, skip, perPage, list.query.conditions.filter((c) => c.match === 'metadata').length);
}

/**
 * SQLite: whether a ranged list's page walks the sort's index rather than reading the range's
 * (rangePlans.ts), from the slice's count and the range's bucket counts: a few count rows, read
 * inline before the page. Only ever a choice of plan: both read the same rows.
 */
async function walksSortIndex(db: Kysely<Database>, list: ListRequest, paging: PageParams, placed: boolean): Promise<boolean | undefined> {
  const counts = await rangeShare(db, list);
  if (!counts) return undefined;
  // The range's index sorts the rows up to the page, counted from the nearer end; a page the amount
  // classes place walks from its bucket, skipping nothing before it.
  const sortCost = sqliteSortCost(skipFromNearerEnd(counts.covered, paging.offset, paging.perPage) + paging.perPage);
  return walkIsCheaper(counts, placed ? 0 : paging.offset, paging.perPage, sortCost);
}

/** SQLite: a ranged list's slice and its rows in the buckets wholly inside its range (rangeShareSelect), when counts choose its plan. */
async function rangeShare(db: Kysely<Database>, list: ListRequest): Promise<{ slice: number; covered: number } | undefined> {
  const { ranged } = list;
  if (!ranged || !plansByCounts(list)) return undefined;
  const compiled = marked(BOUNDED, rangeShareSelect(db, list.table, list.scope, ranged)).compile();
  const [row] = (await db.executeQuery<{ slice: number; covered: number }>(compiled)).rows;
  return { slice: Number(row.slice), covered: Number(row.covered) };
}

/**
 * SQLite: whether a page the amount classes would place with slivers (amountClassRanges.ts) is
 * cheaper so than walked to row by row from the nearer end: the slivers' rows (from the amount
 * buckets wholly inside them, a few count rows each) against the entries the walk would read.
 */
async function sliversAreWorthIt(db: Kysely<Database>, list: ListRequest, search: BucketSearch, paging: PageParams): Promise<boolean> {
  const counts = await rangeShare(db, list);
  if (!counts || !search.slivers?.length) return true;
  let rows = 0;
  for (const sliver of search.slivers) {
    const ranged = rangedTotalOf(list.table, list.scope, inSliver(list.query, sliver));
    // A sliver inside two finest amount buckets covers none: it holds few rows.
    if (ranged) rows += (await rangeShare(db, { ...list, query: inSliver(list.query, sliver), ranged }))?.covered ?? 0;
  }
  return sliversAreCheaper({ ...counts, sliver: rows }, paging.offset, paging.perPage);
}

/** What a list's total and deep pages are found from: the counts of its slice, a range's bucket counts, or neither. */
function listRequest(table: ListTable, scope: ListScope, query: ListQuery): ListRequest {
  const slice = countedSlice(table, scope, query);
  if (slice) return { table, scope, query, slice };
  const ranged = rangedTotalOf(table, scope, query);
  return ranged ? { table, scope, query, slice, ranged } : { table, scope, query, slice };
}

/**
 * The boundary (sort keys + id) of the row at position `offset` (1-based), reached in hops of at
 * most `hop` rows; null when the list is shorter, undefined for offset 0 (nothing to skip past).
 * Run it in a transaction for an exact answer.
 */
export async function skipInHops(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  offset: number,
  hop = SKIP_HOP,
): Promise<Boundary | null | undefined> {
  let boundary: Boundary | undefined;
  for (let skipped = 0; skipped < offset; ) {
    const step = Math.min(hop, offset - skipped);
    const row = await hopSelect(db, table, scope, query, boundary, step).executeTakeFirst();
    if (!row) return null;
    boundary = boundaryOf(row as Record<string, unknown>, query.sort);
    skipped += step;
  }
  return boundary;
}

/** The bucket counts that place this list's pages, in `query`'s order (either end); undefined when none do. */
function bucketSearchOf(list: ListRequest, query: ListQuery): BucketSearch | undefined {
  const [first] = query.sort;
  // A ranged list, sorted by the range's column in one direction: a run of its slice's rows, placed in the slice.
  if (list.ranged) {
    const { ranged } = list;
    const order = totalOrder(query.sort);
    if (!order.every((k) => k.direction === order[0].direction)) return undefined;
    if (first.column !== ranged.column) return amountClassSearchOf(list, query);
    return { tenantId: list.scope.tenantId, slice: ranged.slice, kind: ranged.kind, column: ranged.column, direction: first.direction };
  }
  const kind = list.slice && bucketSliceKind(list.table, list.slice);
  if (!list.slice || !kind || !isBucketed(first.column)) return undefined;
  return { tenantId: list.scope.tenantId, slice: list.slice, kind, column: first.column, direction: first.direction };
}

/**
 * An amount range sorted by created_at, on the whole list or one currency
 * (lists/counters/amountClassBuckets.ts): its pages are placed by the created_at buckets of the nearest
 * run of classes, plus or less the rows of the slivers between its ends and the class edges
 * (none when its ends are edges: amountClassRanges.ts). Undefined for any other ranged list, or
 * a range narrower than its slivers (its pages go the row-by-row ways).
 */
function amountClassSearchOf(list: ListRequest, query: ListQuery): BucketSearch | undefined {
  const { ranged } = list;
  const [first] = query.sort;
  if (ranged?.column !== 'amount' || first.column !== 'created_at' || ranged.kind !== 'tenant') return undefined;
  const narrowed = narrowedDimensions(ranged.slice);
  if (!(narrowed.length === 0 || (narrowed.length === 1 && narrowed[0] === 'currency' && ranged.slice.currency.length === 1))) return undefined;
  const run = amountClassPlanOfQuery(query);
  if (!run) return undefined;
  const { inside, outside, slivers } = run;
  // Whichever are fewer: the classes in the range, or created_at's own buckets less those outside it.
  const subtractKeys = outside.length + 1 < inside.length;
  return {
    tenantId: list.scope.tenantId,
    slice: ranged.slice,
    kind: ranged.kind,
    column: 'created_at',
    direction: first.direction,
    sortKeys: (subtractKeys ? outside : inside).map(amountClassSortKey),
    ...(subtractKeys ? { subtractKeys } : {}),
    ...(slivers.length ? { slivers } : {}),
  };
}

/** The list's rows in one amount sliver: its slice (the list's other conditions) and the sliver's amounts. */
function inSliver(query: ListQuery, sliver: AmountSliver): ListQuery {
  const bounds: ListQuery['conditions'] = [];
  if (sliver.low !== undefined) bounds.push({ column: 'amount', match: 'range', op: 'gte', value: sliver.low });
  if (sliver.high !== undefined) bounds.push({ column: 'amount', match: 'range', op: 'lt', value: sliver.high });
  return { ...query, conditions: [...withoutRanges(query).conditions, ...bounds] };
}

/** The signed rows of a search's slivers per bucket of the descent's finest level (findInBuckets.ts), one grouped read of each sliver. */
function sliverRowsOf(db: Kysely<Database>, dialect: Dialect, list: ListRequest, slivers: AmountSliver[]): SliverRows {
  return (finest) =>
    slivers
      .map((s) => signedRowsPerBucketSelect(db, list.table, list.scope, inSliver(list.query, s), groupingOf(finest, dialect), s.sign))
      .reduce((all, one) => all.unionAll(one));
}

/** How many leading characters of SQLite's stored time (`2026-08-01T13:…Z`, UTC) name its day or its hour. */
const TIME_TEXT_PREFIX: Record<number, number> = { 86400000: 10, 3600000: 13 };

/**
 * What a sliver's rows are grouped by: its finest bucket. SQLite groups by the stored text's day or
 * hour (`substr`), a group then being one bucket: the bucket's number from each row's text
 * (strftime) took 1 µs a row, three times the grouping (2,204 rows at 1M: 2.1 against 0.7 ms).
 */
function groupingOf(finest: BucketLevel, dialect: Dialect): string {
  const prefix = TIME_TEXT_PREFIX[finest.high(0) - finest.low(0)];
  return dialect === 'sqlite' && prefix ? `substr(created_at, 1, ${prefix})` : finest.sql(dialect);
}

/** The select of a list's total (`n`); `dialect` writes a metadata search's count from its entries as that database plans it best (metadataPlanStatement.ts). */
function totalSelect(db: Kysely<Database>, dialect: Dialect, list: ListRequest) {
  if (list.slice) return countedTotalSelect(db, list.scope.tenantId, list.table, list.slice);
  if (list.ranged) {
    const query = dialect === 'postgres' ? withLowEndClosed(list.query, list.ranged.column) : list.query;
    return rangedTotalSelect(db, list.table, list.scope, query, list.ranged);
  }
  if (searchesMetadata(list.query)) {
    const by = list.countBy ?? (totalIsValueCount(list.scope, list.query) ? 'entries' : { lead: 0 });
    return metadataTotalSelect(db, dialect, list.table, list.scope, list.query, by);
  }
  // SQLite, a keyed filter holding few rows (keyedFilters.ts): counted in its own index, the other filters tested row by row.
  if (list.keyed !== undefined) return countSelect(db, list.table, list.scope, withKeyedWriting(list.query, list.keyed, false));
  return countSelect(db, list.table, list.scope, list.query);
}

/** SQLite: a keyed filter whose counts chose its plan (keyedFilters.ts): its column, and how its rows are read (ListRequest's `walk`). */
export interface KeyedPlan {
  column: string;
  walk: boolean | undefined;
}

/**
 * The select of a list's exact total as the service reads it (`n`): for `npm run explain`, the plan
 * test and exports. `keyed`: the keyed filter's plan, whose index then counts the total.
 */
export function listTotalSelect(db: Kysely<Database>, dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery, keyed?: KeyedPlan) {
  const list = listRequest(table, scope, dialect === 'sqlite' ? withLeadDimension(table, scope, query) : query);
  if (keyed) list.keyed = keyed.column;
  const counted = searchesMetadata(query) && totalIsValueCount(scope, query);
  return {
    select: totalSelect(db, dialect, list),
    from: list.slice ? 'list_counts' : list.ranged ? 'list_buckets and edge rows' : counted ? 'metadata_value_counts' : 'count',
  };
}

/** The query of every row of a list (an export's), written for a keyed plan as a page's rows are (rowsQueryOf). */
export function wholeListQuery(dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery, keyed?: KeyedPlan): ListQuery {
  const list = listRequest(table, scope, query);
  if (keyed) Object.assign(list, { keyed: keyed.column, walk: keyed.walk });
  return rowsQueryOf(dialect, list);
}

/** `limit` rows after `skip` rows of the list in `query`'s order, inside the caller's snapshot, for lists that bucket counts do not place. */
async function rowsAt(
  db: Kysely<Database>,
  dialect: Dialect,
  tuning: ListTuning,
  list: ListRequest,
  query: ListQuery,
  skip: number,
  limit: number,
  total: number,
): Promise<{ rows: string[]; how: 'offset' | 'deferred-join' | 'skip-hops' | 'sorted-ids' | 'classes' }> {
  const { table, scope, ranged } = list;
  const run = async (select: { execute(): Promise<Array<{ resource: string }>> }) => (await select.execute()).map((r) => r.resource);
  // A created_at range in amount order: placed in its amount class when that costs less than the
  // other way (amountOrderPage.ts): the walk, or on SQLite the range's index sorted, which costs
  // each entry of the range (sqliteSortCost).
  if (skip >= tuning.plainOffsetUpTo && ranged && amountOrderPlaceable(table, scope, query, ranged)) {
    const rival = list.walk === false ? sqliteSortCost(skip + limit) * total : undefined;
    const request = { table, scope, listQuery: list.query, query, ranged, skip, limit, total, rival };
    const rows = await amountOrderPage(db, dialect, request, tuning.classPlacement);
    if (rows) return { rows, how: 'classes' };
  }
  // SQLite, the range's index read (few rows in range, rangePlans.ts): their ids sorted at any depth, no hops.
  if (list.walk === false) return { rows: await run(sortedIdsPageSelect(db, table, scope, query, skip, limit)), how: 'sorted-ids' };
  if (skip < tuning.plainOffsetUpTo) return { rows: await run(offsetPageSelect(db, table, scope, query, skip, limit)), how: 'offset' };
  if (dialect === 'postgres') return { rows: await run(deferredJoinPageSelect(db, table, scope, query, skip, limit)), how: 'deferred-join' };
  const boundary = await skipInHops(db, table, scope, query, skip, tuning.skipHop);
  return { rows: boundary === null ? [] : await run(afterBoundarySelect(db, table, scope, query, boundary, limit)), how: 'skip-hops' };
}

/**
 * The page inside one snapshot, once its total is known: nothing past the end; otherwise from
 * whichever end of the list is nearer, so the last pages cost what the first ones do.
 */
async function pageOf(db: Kysely<Database>, dialect: Dialect, tuning: ListTuning, list: ListRequest, total: number, paging: PageParams): Promise<ListPage> {
  const { offset, perPage } = paging;
  if (offset >= total) return { total, rows: [], strategy: 'past-end' };
  const limit = Math.min(perPage, total - offset);
  const fromEnd = total - offset - limit;
  const query = rowsQueryOf(dialect, list);
  if (fromEnd < offset) {
    const page = await rowsAt(db, dialect, tuning, list, reversed(query), fromEnd, limit, total);
    return { total, rows: page.rows.reverse(), strategy: `${page.how}-from-end` };
  }
  const page = await rowsAt(db, dialect, tuning, list, query, offset, limit, total);
  return { total, rows: page.rows, strategy: page.how };
}

/**
 * The descent and the page it places. A ranged list's descent looks for row (rows of the slice
 * before the range) + offset of its slice, and skips the slice's rows from that bucket's start;
 * the page is then read with the range's conditions too (rows past the range are not the list's).
 */
function placedPage(db: Kysely<Database>, dialect: Dialect, list: ListRequest, search: BucketSearch, paging: PageParams) {
  const { table, scope, query, ranged } = list;
  if (search.sortKeys) {
    // The descent counted the range's own rows; the skip and the page walk the sort's index and test the range on each row.
    const walked = withRangesWritten(query, dialect === 'sqlite' ? 'unindexed' : 'opaque');
    const slivers = search.slivers && sliverRowsOf(db, dialect, list, search.slivers);
    const descent = bucketDescent(search, totalSelect(db, dialect, list), paging.offset, dialect, undefined, slivers);
    return { descent, page: pageFromRowSelect(db, table, scope, walked, descent.start, descent.skip, paging.perPage, walked) };
  }
  const before = ranged && rowsBeforeRangeSelect(db, table, scope, query, ranged, search.direction);
  const descent = bucketDescent(search, totalSelect(db, dialect, list), paging.offset, dialect, before);
  const skipQuery = ranged ? withoutRanges(query) : query;
  // SQLite: the range's bound on the page's starting side steers no index (rangePlans.ts).
  const rowsQuery = ranged && dialect === 'sqlite' ? withStartSideUnindexed(query, search.direction) : query;
  return { descent, page: pageFromRowSelect(db, table, scope, rowsQuery, descent.start, descent.skip, paging.perPage, skipQuery) };
}

/** PostgreSQL: the page a bucket descent places and the total, as one prepared statement. */
function bucketPageStatement(db: Kysely<Database>, list: ListRequest, search: BucketSearch, paging: PageParams) {
  const { descent, page } = placedPage(db, 'postgres', list, search, paging);
  return sql`${sql.raw(PREPARED)}with ${withClause([...descent.ctes, ...page.ctes])}
    select t.n as total, p.resource from t left join lateral (${page.rows()}) as p on true`;
}

/** SQLite: the same as the page's own select (its ORDER BY gives the order), every common table expression attached, the total a column. */
function bucketPageSelect(db: Kysely<Database>, list: ListRequest, search: BucketSearch, paging: PageParams) {
  const { descent, page } = placedPage(db, 'sqlite', list, search, paging);
  const withCtes = [...descent.ctes, ...page.ctes].reduce(
    (creator, cte) => creator.with(cte.name, () => cte.expression as Expression<Record<string, unknown>>) as unknown as QueryCreator<Database>,
    db as QueryCreator<Database>,
  );
  return page.rows(withCtes).select(sql<number>`(select n from t)`.as('total'));
}

/**
 * The first pages (a skip below plainOffsetUpTo), by OFFSET, with the total, as one statement:
 * PostgreSQL `select t.n as total, p.resource from t left join lateral (page) p on true`; SQLite
 * the page's own select with the total as a column of each row.
 */
function offsetPageStatement(db: Kysely<Database>, dialect: Dialect, list: ListRequest, paging: PageParams): Compilable {
  if (list.entryOrder) {
    const statement = entryOrderPageStatement(dialect, list.table, list.scope, list.query, paging, dialect === 'postgres', list.lead);
    return dialect === 'sqlite' ? sqlitePage(list, { compile: () => statement.compile(db) }) : { compile: () => statement.compile(db) };
  }
  const page = (list.walk === false ? sortedIdsPageSelect : offsetPageSelect)(
    db,
    list.table,
    list.scope,
    rowsQueryOf(dialect, list),
    paging.offset,
    paging.perPage,
  );
  if (dialect === 'sqlite') return sqlitePage(list, page.select(totalSelect(db, dialect, list).as('total')));
  if (list.choose && list.ranged) {
    const chosen = rangePlanPageStatement(db, list.table, list.scope, list.query, list.ranged, paging);
    return { compile: () => chosen.compile(db) };
  }
  // A range or values written as literals make the text differ per value: sent unnamed, planned per call.
  const prepared = hasLiteral(list.query) ? '' : PREPARED;
  if (list.chooseMetadata) {
    const chosen = metadataPlanPageStatement(db, list.table, list.scope, list.query, paging, list.chooseMetadata, prepared !== '');
    return { compile: () => chosen.compile(db) };
  }
  if (list.skipInIndex) {
    const { ctes, rows } = pageFromRowSelect(db, list.table, list.scope, list.query, undefined, sql<number>`${paging.offset}`, paging.perPage);
    const statement = sql`${sql.raw(prepared)}with ${withClause(ctes)}
    select t.n as total, p.resource from (${totalSelect(db, dialect, list)}) as t left join lateral (${rows()}) as p on true`;
    return { compile: () => statement.compile(db) };
  }
  const statement = sql`${sql.raw(prepared)}select t.n as total, p.resource from (${totalSelect(db, dialect, list)}) as t left join lateral (${page}) as p on true`;
  return { compile: () => statement.compile(db) };
}

/**
 * From this OFFSET on, a first page of PostgreSQL skips in the index alone (skipsInIndex); below
 * it the few table rows cost about what a second index descent does (one account's payments at
 * 1M, EXPLAIN ANALYZE: OFFSET 90 read from the table 0.10 ms, OFFSET 100 in the index 0.08 ms).
 */
const SKIP_IN_INDEX_FROM = 100;

/**
 * PostgreSQL: whether a first page skips its OFFSET in the sort's index alone (pageFromRowSelect:
 * the starting row's keys by an index-only scan, then the page from there by a row comparison).
 * A plain OFFSET visits the table for every row it skips (page 99 of one account's 1,095
 * payments: 990 table pages, ~1 ms of a ~0.3 ms page 1). Only for lists whose rows are a run of
 * the sort's index, in one direction (the lists bucket counts place: a counted slice, or its
 * range of the sort's first column); SQLite steps over skipped entries without reading their rows.
 */
function skipsInIndex(dialect: Dialect, list: ListRequest, paging: PageParams): boolean {
  if (dialect !== 'postgres' || paging.offset < SKIP_IN_INDEX_FROM || !bucketSearchOf(list, list.query)) return false;
  const order = totalOrder(list.query.sort);
  return order.every((k) => k.direction === order[0].direction);
}

/** The statement of a page that one statement answers, built for this request alone (pageStatementCompiled builds the same once per shape). */
function pageStatement(db: Kysely<Database>, dialect: Dialect, list: ListRequest, paging: PageParams, search: BucketSearch | undefined): Compilable {
  if (!search) return offsetPageStatement(db, dialect, list, paging);
  if (dialect === 'sqlite') return sqlitePage(list, bucketPageSelect(db, list, search, paging));
  const statement = bucketPageStatement(db, list, search, paging);
  return { compile: () => statement.compile(db) };
}

const templates = new StatementTemplates();

/**
 * Whether a page's one statement costs the same whatever the list's size (BOUNDED: on SQLite it
 * is read inline, not on a reader within the statement timeout): its list is a counted slice, no
 * range, either the whole list or one value of one counted dimension sorted by created_at or
 * amount. Its total is then a sum of a few maintained count rows (no count(*)), and its rows come
 * from the slice's own index in list order (query-plans.md), so the statement reads at most the
 * first pages' OFFSET (below plainOffsetUpTo) or the skip inside one bucket, plus per_page index
 * entries and rows. Not bounded, so read on a reader: lists counted row by row (any filter that
 * is no counted dimension), ranges, several values or several dimensions (filtered row by row
 * along another index), a filtered list sorted by another column.
 */
function boundedPage(list: ListRequest): boolean {
  // Told from the conditions, not the slice's values: a statement built once per shape sees placeholders there.
  const { slice, scope, query } = list;
  if (!slice) return false;
  const narrowing = query.conditions.length + (scope.accountId !== undefined ? 1 : 0);
  if (narrowing === 0) return true;
  return narrowing === 1 && query.conditions.every((c) => c.match === 'in' && c.values.length === 1) && isBucketed(query.sort[0].column);
}

/** SQLite: a page is at most per_page rows, read in one call (READ_AT_ONCE), and BOUNDED when boundedPage says so. */
const sqlitePage = (list: ListRequest, statement: Compilable) => marked(READ_AT_ONCE, boundedPage(list) ? marked(BOUNDED, statement) : statement);

/**
 * The compiled statement of a page that one statement answers (its first pages by OFFSET, or a
 * deep page placed by bucket counts), built once per list shape (statementTemplates.ts): the list
 * with a placeholder for every value (tenant, account, endpoint, filter values, the slice's
 * accounts and statuses, offset, per_page), keyed by everything the SQL is decided from.
 * Undefined for a `contains` filter, whose SQL value is derived from the request's (the LIKE
 * pattern): such lists are built per request.
 */
function pageStatementCompiled(db: Kysely<Database>, dialect: Dialect, list: ListRequest, paging: PageParams, search: BucketSearch | undefined) {
  const { scope, query, slice } = list;
  if (query.conditions.some((c) => c.match === 'contains')) return undefined;
  // A range or values written as literals (PostgreSQL, rangePlans.ts, valuePlans.ts): its statement is planned per value.
  if (hasLiteral(query)) return undefined;
  const values: Record<string, unknown> = {
    tenant: scope.tenantId,
    account: scope.accountId,
    endpoint: scope.endpointId,
    offset: paging.offset,
    perPage: paging.perPage,
  };
  query.conditions.forEach((c, i) => {
    if (c.match === 'in' || c.match === 'metadata') c.values.forEach((v, j) => (values[`c${i}.${j}`] = v));
    else values[`c${i}`] = c.value;
    if (c.match === 'metadata') values[`c${i}.key`] = c.key;
  });
  for (const d of DIMENSIONS) slice?.[d].forEach((v, j) => (values[`${d}${j}`] = v));
  search?.slivers?.forEach((s, k) => {
    if (s.low !== undefined) values[`sv${k}.low`] = s.low;
    if (s.high !== undefined) values[`sv${k}.high`] = s.high;
  });
  const { ranged } = list;
  if (ranged) {
    for (const d of DIMENSIONS) ranged.slice[d].forEach((v, j) => (values[`r.${d}${j}`] = v));
    ranged.segments.forEach((seg, k) => {
      values[`r${k}.from`] = seg.from;
      if (seg.to !== undefined) values[`r${k}.to`] = seg.to;
    });
    values['r.low'] = ranged.low;
    if (ranged.high !== undefined) values['r.high'] = ranged.high;
    // A deep page also reads the slice's runs of buckets below and above the range (rowsBeforeRangeSelect).
    for (const side of ['below', 'above'] as const) {
      ranged[side].forEach((seg, k) => {
        if (seg.from !== undefined) values[`r.${side}${k}.from`] = seg.from;
        if (seg.to !== undefined) values[`r.${side}${k}.to`] = seg.to;
      });
    }
  }
  const key = JSON.stringify([
    dialect,
    list.table,
    scope.accountId !== undefined,
    scope.endpointId !== undefined,
    query.sort,
    search
      ? [
          search.kind,
          search.column,
          search.direction,
          search.sortKeys ?? null,
          search.subtractKeys === true,
          search.slivers?.map((s) => [s.sign, s.low === undefined, s.high === undefined]) ?? null,
        ]
      : 'offset',
    list.walk ?? null,
    list.probe === true,
    list.chooseMetadata ?? null,
    list.countBy ?? null,
    list.lead ?? null,
    list.entryOrder === true,
    query.entriesBehind === true,
    list.keyed ?? null,
    list.choose === true,
    list.skipInIndex === true,
    query.conditions.map((c) => [c.column, c.match, c.match === 'in' || c.match === 'metadata' ? c.values.length : c.match === 'range' ? c.op : 0]),
    slice ? DIMENSIONS.map((d) => slice[d].length) : null,
    ranged
      ? [
          ranged.kind,
          ranged.column,
          DIMENSIONS.map((d) => ranged.slice[d].length),
          ranged.segments.map((seg) => [seg.level, seg.to === undefined]),
          ranged.high === undefined,
          search ? [ranged.below, ranged.above].map((runs) => runs.map((seg) => [seg.level, seg.from === undefined, seg.to === undefined])) : null,
        ]
      : null,
  ]);
  return templates.statement(
    key,
    (slot) => {
      const slotted: ListRequest = {
        table: list.table,
        walk: list.walk,
        probe: list.probe,
        chooseMetadata: list.chooseMetadata,
        countBy: list.countBy,
        lead: list.lead,
        entryOrder: list.entryOrder,
        keyed: list.keyed,
        choose: list.choose,
        skipInIndex: list.skipInIndex,
        scope: {
          tenantId: slot('tenant'),
          ...(scope.accountId !== undefined ? { accountId: slot<string>('account') } : {}),
          ...(scope.endpointId !== undefined ? { endpointId: slot<string>('endpoint') } : {}),
        },
        query: {
          sort: query.sort,
          ...(query.entriesBehind ? { entriesBehind: true as const } : {}),
          conditions: query.conditions.map((c, i) =>
            c.match === 'in'
              ? { ...c, values: c.values.map((_, j) => slot<string>(`c${i}.${j}`)) }
              : c.match === 'metadata'
                ? { ...c, key: slot<string>(`c${i}.key`), values: c.values.map((_, j) => slot<string>(`c${i}.${j}`)) }
                : { ...c, value: slot<string>(`c${i}`) },
          ),
        },
        slice: slice && slottedSlice(slot, '', slice),
        ...(ranged
          ? {
              ranged: {
                ...ranged,
                slice: slottedSlice(slot, 'r.', ranged.slice),
                segments: ranged.segments.map((seg, k) => ({
                  level: seg.level,
                  from: slot<number>(`r${k}.from`),
                  ...(seg.to !== undefined ? { to: slot<number>(`r${k}.to`) } : {}),
                })),
                below: slottedRuns(slot, 'below', ranged.below),
                above: slottedRuns(slot, 'above', ranged.above),
                low: slot<string | number>('r.low'),
                ...(ranged.high !== undefined ? { high: slot<string | number>('r.high') } : {}),
              },
            }
          : {}),
      };
      const slottedPaging = { ...paging, offset: slot<number>('offset'), perPage: slot<number>('perPage') };
      if (!search) return offsetPageStatement(db, dialect, slotted, slottedPaging);
      // A ranged list's descent runs in its slice (bucketSearchOf).
      const slottedSearch = {
        ...search,
        tenantId: slot<string>('tenant'),
        slice: (slotted.ranged?.slice ?? slotted.slice) as ListSlice,
        ...(search.slivers ? { slivers: slottedSlivers(slot, search.slivers) } : {}),
      };
      if (dialect === 'sqlite') return sqlitePage(slotted, bucketPageSelect(db, slotted, slottedSearch, slottedPaging));
      const statement = bucketPageStatement(db, slotted, slottedSearch, slottedPaging);
      return { compile: () => statement.compile(db) };
    },
    values,
  );
}

/**
 * A slice with a placeholder for every value, but '' (all) kept as it is: which dimensions a slice
 * narrows is decided by the list's shape (the key), and the changes not folded yet are matched
 * on those alone (lists/counters/changeTail.ts).
 */
function slottedSlice(slot: SlotMaker, prefix: string, slice: ListSlice): ListSlice {
  return Object.fromEntries(DIMENSIONS.map((d) => [d, slice[d][0] === '' ? [''] : slice[d].map((_, j) => slot<string>(`${prefix}${d}${j}`))])) as ListSlice;
}

/** A search's amount slivers, with a placeholder for every end. */
function slottedSlivers(slot: SlotMaker, slivers: AmountSliver[]): AmountSliver[] {
  return slivers.map((s, k) => ({
    sign: s.sign,
    ...(s.low !== undefined ? { low: slot<number>(`sv${k}.low`) } : {}),
    ...(s.high !== undefined ? { high: slot<number>(`sv${k}.high`) } : {}),
  }));
}

/** A ranged list's runs of buckets on one side of its range, with a placeholder for every bucket number. */
function slottedRuns(slot: SlotMaker, side: 'below' | 'above', runs: BucketSegment[]): BucketSegment[] {
  return runs.map((seg, k) => ({
    level: seg.level,
    ...(seg.from !== undefined ? { from: slot<number>(`r.${side}${k}.from`) } : {}),
    ...(seg.to !== undefined ? { to: slot<number>(`r.${side}${k}.to`) } : {}),
  }));
}

/** The one statement that reads one of a list's first pages and its total, as the service sends it (for the bench's "SQL alone"). */
export function offsetPageQuery(
  db: Kysely<Database>,
  dialect: Dialect,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
): CompiledQuery {
  const list = statementList(dialect, listRequest(table, scope, query), DEFAULT_TUNING);
  list.skipInIndex = skipsInIndex(dialect, list, paging);
  return pageStatementCompiled(db, dialect, list, paging, undefined) ?? offsetPageStatement(db, dialect, list, paging).compile();
}

/** The one statement that reads a deep page of a bucketed list on `dialect` (for `npm run explain` and the plan test); undefined for other lists. */
export function bucketPageQuery(
  db: Kysely<Database>,
  dialect: Dialect,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
): Compilable | undefined {
  const list = listRequest(table, scope, query);
  const search = bucketSearchOf(list, query);
  if (!search) return undefined;
  if (dialect === 'sqlite') return bucketPageSelect(db, list, search, paging);
  const statement = bucketPageStatement(db, list, search, paging);
  return { compile: () => statement.compile(db) };
}

/**
 * PostgreSQL: the one statement's rows straight to the sink as they arrive (streamRowTexts.ts),
 * each `(total, resource)`; one row with a null resource when the page has none. With a guard,
 * the statement carries it (db/guardedStatement.ts): undefined when no row came, the guard failed.
 */
async function streamedPage(
  db: Db,
  compiled: CompiledQuery,
  offset: number,
  how: PageStrategy,
  add: PageRowSink,
  guard: StatementGuard | undefined,
): Promise<WrittenPage | undefined> {
  if (db.native.dialect !== 'postgres') throw new Error('streamedPage is for PostgreSQL');
  let total = 0;
  let count = 0;
  let seen = 0;
  let noted = false;
  await streamRowTexts(db.native.pool, guard ? guardedStatement(compiled, guard.select.compile()) : compiled, (fields) => {
    if (seen++ === 0) {
      total = Number(fields[0]);
      noted = fields[2] === 't';
    }
    const resource = fields[1];
    if (resource === null) return;
    add(resource);
    count++;
  });
  if (guard) {
    if (seen === 0) return undefined;
    guard.held(noted);
  }
  return { total, count, strategy: offset >= total ? 'past-end' : how };
}

/**
 * One page of a list and its exact total, both read in one snapshot of the data at request
 * time, so `data` is exactly what `OFFSET (page-1)*per_page LIMIT per_page` gives at that moment
 * and agrees with `total`. Nothing is remembered between requests. The total comes from the
 * maintained counts for counted slices, else from count(*); deep pages of counted slices are
 * placed through bucket counts (findInBuckets.ts), in the statement that reads them. The rows go
 * to `add` in order (on PostgreSQL as the driver parses them, when one statement answers).
 *
 * `guard`: the caller's key, not yet checked for this request (auth/authenticate.ts). On
 * PostgreSQL the one statement checks it as it reads the page (no row unless it holds: then its
 * own lookup says why, and nothing was sent to `add`); otherwise it is looked up first. SQLite
 * has no round trip to save: the lookup is an index probe in the process, as on every route.
 */
export async function writeListPage(
  ctx: ListContext,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
  add: PageRowSink,
  guard?: StatementGuard,
): Promise<WrittenPage> {
  const { kysely: db, dialect } = ctx.db;
  const tuning = ctx.tuning ?? DEFAULT_TUNING;
  const { offset } = paging;
  if (readsMovingColumns(table, query)) {
    await guard?.check();
    return written(await movingColumnsPage(ctx, table, scope, query, paging), add);
  }
  // The first pages' one statement; deep pages (and the rare fall-back below) as plannedQuery writes them.
  const whole = listRequest(table, scope, query);
  // A search read in its entries' order: every page is one statement, as a first page is (entryOrderPage.ts).
  const entryOrder = inEntryOrder(whole, tuning);
  const asFirstPage = offset < tuning.plainOffsetUpTo || entryOrder;
  const placed = asFirstPage ? undefined : bucketSearchOf(whole, query);
  // A search read in its entries' order with a choice of lead reads its counts first (below): the key is checked before.
  const leadChoice = entryOrder && entryOrderLeads(query).length > 1;
  if (guard && !((asFirstPage || placed !== undefined) && dialect === 'postgres' && !leadChoice)) await guard.check();
  // After the key's check: nothing of the tenant's is read for a key not yet proven. SQLite: the
  // counts choose a ranged list's plan; a page that amount classes would place, walking the sort's
  // index from there, is read from the range's index instead when the range holds few rows.
  const walk = dialect === 'sqlite' ? await walksSortIndex(db, whole, paging, placed?.sortKeys !== undefined) : undefined;
  // SQLite: a filter on a column of many values (a card's last four) chooses its plan by its counts too.
  const keyed = dialect === 'sqlite' && walk === undefined && !placed ? keyedConditionOf(table, scope, query) : undefined;
  const keyedPlan = keyed && keyedPlanOf(await keyedCounts(db, table, scope, query, keyed), query, keyed, offset, paging.perPage, !asFirstPage);
  // SQLite: a sliver holding more rows than a walk to the page reads leaves the page to the walk.
  const slivered = dialect === 'sqlite' && walk === true && placed?.slivers ? await sliversAreWorthIt(db, whole, placed, paging) : true;
  const search = placed?.sortKeys && (walk === false || !slivered) ? undefined : placed;
  // A page placed by amount classes walks the sort's index (placedPage): its range is no literal, its statement built once per shape.
  const list = asFirstPage ? statementList(dialect, whole, tuning) : search?.sortKeys ? whole : plannedList(dialect, whole);
  if (!search?.sortKeys) list.walk = walk;
  if (keyed && keyedPlan) Object.assign(list, { keyed: keyed.column, walk: keyedPlan.walk });
  const how = search ? 'buckets' : entryOrder ? 'entries' : list.walk === false ? 'sorted-ids' : 'offset';
  const oneStatement = asFirstPage || search !== undefined;
  // A first page's skip is its OFFSET (below plainOffsetUpTo); deeper pages choose once their total is known.
  if (dialect === 'sqlite' && oneStatement && searchesMetadata(list.query) && !list.entryOrder) {
    const counts = await metadataCounts(db, list);
    list.countBy = metadataCountOf(list.scope, list.query, counts);
    list.probe = probesEntries(tuning, list, counts, offset, paging.perPage);
    list.lead = counts.lead;
  }
  // A search read in its entries' order with a choice of lead: the fewest entries, by their counts (a choice of plan only).
  if (list.entryOrder && leadChoice) {
    const counts = (await db.executeQuery(entryLeadCountsSelect(db, list.table, list.scope, list.query))).rows[0];
    list.lead = entryOrderLead(list.query, counts);
  }
  if (offset < tuning.plainOffsetUpTo && !list.entryOrder) list.skipInIndex = skipsInIndex(dialect, list, paging);
  // One statement is one snapshot: total and rows together, one round trip (the key's check too).
  if (oneStatement) {
    const compiled = pageStatementCompiled(db, dialect, list, paging, search) ?? pageStatement(db, dialect, list, paging, search).compile();
    // Bucket counts that disagree with the rows cannot happen (one snapshot, kept by every write);
    // if they ever did, the page is found the slow exact way rather than answered empty (nothing
    // went to the sink then). On SQLite a page with no rows says nothing of the total: both are
    // read again in a transaction.
    if (dialect === 'postgres') {
      const page = await streamedPage(ctx.db, compiled, offset, how, add, guard);
      if (!page) {
        // The key failed the check: its lookup throws what refuses it. Held meanwhile: read again, checked.
        await guard?.check();
        return writeListPage(ctx, table, scope, query, paging, add);
      }
      if (page.count > 0 || page.strategy === 'past-end') return page;
    } else {
      const page = pageOfRows((await db.executeQuery<RowWithTotal>(compiled)).rows, offset, how);
      if (page && (page.rows.length > 0 || page.strategy === 'past-end')) return written(page, add);
    }
  }
  const planned = list.choose || list.chooseMetadata ? plannedList(dialect, whole) : list;
  const page = await readOnlySnapshot(db, dialect).execute((trx) => pageInSnapshot(trx, dialect, tuning, planned, paging));
  return written(page, add);
}

function readOnlySnapshot(db: Kysely<Database>, dialect: Dialect) {
  const transaction = db.transaction().setAccessMode('read only');
  return dialect === 'postgres' ? transaction.setIsolationLevel('repeatable read') : transaction;
}

/** A page and its total read in the caller's snapshot, statement by statement. */
async function pageInSnapshot(trx: Kysely<Database>, dialect: Dialect, tuning: ListTuning, planned: ListRequest, paging: PageParams): Promise<ListPage> {
  if (!searchesMetadata(planned.query))
    return pageOf(trx, dialect, tuning, planned, Number((await totalSelect(trx, dialect, planned).executeTakeFirstOrThrow()).n), paging);
  // A metadata search: its counts first, which choose how its total is counted and how its page is found.
  // PostgreSQL plans these statements for their values (a generic plan knows none: metadataPlans.ts).
  if (dialect === 'postgres') await sql`set local plan_cache_mode = force_custom_plan`.execute(trx);
  const counts = await metadataCounts(trx, planned);
  const counted = { ...planned, countBy: metadataCountOf(planned.scope, planned.query, counts) };
  // A search of one key, alone or with statuses: its total is the counts' sum just read (same snapshot), no second statement.
  const total = counted.countBy === 'entries' ? counts.matches : Number((await totalSelect(trx, dialect, counted).executeTakeFirstOrThrow()).n);
  // Counted from the nearer end, as pageOf reads it.
  const skip = skipFromNearerEnd(total, paging.offset, paging.perPage);
  return pageOf(trx, dialect, tuning, { ...counted, probe: probesEntries(tuning, planned, counts, skip, paging.perPage), lead: counts.lead }, total, paging);
}

/**
 * A metadata search of payments by status or amount (entriesCurrent.ts): in one snapshot, whether
 * its entries' copies of them are current, then the page from the entries if they are, else with
 * those conditions tested on the payments.
 */
async function movingColumnsPage(ctx: ListContext, table: ListTable, scope: ListScope, query: ListQuery, paging: PageParams): Promise<ListPage> {
  const { kysely: db, dialect } = ctx.db;
  const tuning = ctx.tuning ?? DEFAULT_TUNING;
  return readOnlySnapshot(db, dialect).execute(async (trx) => {
    const current = !(await entriesBehind(trx, scope.tenantId, query));
    const whole = listRequest(table, scope, current ? query : withEntriesBehind(query));
    if (inEntryOrder(whole, tuning)) {
      const list: ListRequest = { ...whole, entryOrder: true };
      if (entryOrderLeads(list.query).length > 1)
        list.lead = entryOrderLead(list.query, (await trx.executeQuery(entryLeadCountsSelect(trx, table, scope, list.query))).rows[0]);
      const compiled = pageStatementCompiled(trx, dialect, list, paging, undefined) ?? pageStatement(trx, dialect, list, paging, undefined).compile();
      const page = pageOfRows((await trx.executeQuery<RowWithTotal>(compiled)).rows, paging.offset, 'entries');
      if (page && (page.rows.length > 0 || page.strategy === 'past-end')) return page;
    }
    return pageInSnapshot(trx, dialect, tuning, plannedList(dialect, whole), paging);
  });
}

function written({ total, rows, strategy }: ListPage, add: PageRowSink): WrittenPage {
  for (const row of rows) add(row);
  return { total, count: rows.length, strategy };
}

/** One page of a list and its exact total, its rows at hand (writeListPage). */
export async function fetchListPage(
  ctx: ListContext,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
  guard?: StatementGuard,
): Promise<ListPage> {
  const rows: string[] = [];
  const { total, strategy } = await writeListPage(ctx, table, scope, query, paging, (row) => rows.push(row), guard);
  return { total, rows, strategy };
}
