import type { Dialect } from '../../db/schema.ts';
import { isBucketed } from '../counters/sortBuckets.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import { amountOrderPlaceable } from './amountOrderClasses.ts';
import { PLANNING } from './dialectPlanning.ts';
import { bucketSearchOf, inSliver } from './bucketSearch.ts';
import { entryOrderLead, entryOrderLeads, readsInEntryOrder } from './entryOrderPlans.ts';
import { keyedConditionOf, keyedPlanOf, withKeyedWriting } from './keyedPlans.ts';
import { withLeadDimension } from './leadDimension.ts';
import { listShapeOf, type ListShape, type RangedShape } from './listShape.ts';
import type { ListTuning } from './listTuning.ts';
import {
  metadataCountOf,
  probeIsCheaper,
  searchesMetadata,
  totalIsValueCount,
  withMetadataLead,
  withMetadataProbed,
  type MetadataCount,
} from './metadataPlans.ts';
import type {
  CountQuestion,
  MetadataCounts,
  OneStatementPlan,
  PagePlan,
  PageRequest,
  PlanCounts,
  RowsPlan,
  RowsWriting,
  SnapshotPlan,
  TotalWay,
} from './pagePlan.ts';
import { hasRangeOffTheSort, sliversAreCheaper, sqliteSortCost, walkIsCheaper, walkServesOrder, withRangesWritten, withSortUnindexed } from './rangePlans.ts';
import { rangedTotalOf } from './rangedTotal.ts';
import { skipFromNearerEnd } from './skipFromNearerEnd.ts';
import { reversed, totalOrder } from './totalOrder.ts';
import { picksIndexByValues, withValuesLiteral } from './valuePlans.ts';

/**
 * The planner, pure: a request and the counts' answers in, one PagePlan out. Counts are read
 * one question at a time (nextQuestion) by the runner, so a plan reads no count it does not need;
 * every answer only ever chooses a plan, and every plan reads the same rows.
 */

/** A page asked of a list, before any count is read. */
export function pageRequestOf(dialect: Dialect, tuning: ListTuning, table: ListTable, scope: ListScope, query: ListQuery, paging: PageParams): PageRequest {
  const whole = listShapeOf(table, scope, query);
  const entryOrder = tuning.metadataPlan === undefined && readsInEntryOrder(scope, query);
  const asFirstPage = paging.offset < tuning.plainOffsetUpTo || entryOrder;
  const placed = asFirstPage ? undefined : bucketSearchOf(whole, query);
  return { dialect, tuning, paging, whole, entryOrder, asFirstPage, ...(placed ? { placed } : {}) };
}

/**
 * Whether a ranged list's page has its plan chosen from counts (rangePlans.ts): a range on
 * another column than the sort's first, on a bucketed slice whose index gives the sort's order.
 */
export function plansByCounts(list: ListShape): list is RangedShape {
  const { ranged, query } = list;
  return ranged !== undefined && hasRangeOffTheSort(query) && isBucketed(query.sort[0].column) && walkServesOrder(ranged.slice, query);
}

/** A search read in its entries' order with a choice of lead reads its counts first. */
const leadChoice = (r: PageRequest) => r.entryOrder && entryOrderLeads(r.whole.query).length > 1;

/**
 * Whether the caller's key is checked by the page's one statement (PostgreSQL, no count read
 * before it), else looked up first: nothing of the tenant's is read for a key not yet proven.
 */
export function keyCheckedInStatement(r: PageRequest): boolean {
  return PLANNING[r.dialect].checksKeyInStatement && (r.asFirstPage || r.placed !== undefined) && !leadChoice(r);
}

/** The next count the plan is chosen from, given the answers so far; undefined once the plan can be made. */
export function nextQuestion(r: PageRequest, counts: PlanCounts): CountQuestion | undefined {
  const { dialect, whole, placed } = r;
  if (PLANNING[dialect].countsChooseFirst) {
    if (plansByCounts(whole)) {
      if (!counts.rangeShare) return { ask: 'range-share', list: whole };
      if (counts.sliverRows === undefined && placed?.slivers?.length && walkChosen(r, counts.rangeShare)) {
        const slivers = placed.slivers.flatMap((sliver) => {
          const query = inSliver(whole.query, sliver);
          const ranged = rangedTotalOf(whole.table, whole.scope, query);
          const list = ranged && { ...whole, query, ranged };
          // A sliver inside two finest amount buckets covers none: it holds few rows.
          return list && plansByCounts(list) ? [list] : [];
        });
        return { ask: 'sliver-rows', slivers };
      }
    } else if (!placed && !counts.keyed) {
      const condition = keyedConditionOf(whole.table, whole.scope, whole.query);
      if (condition) return { ask: 'keyed', list: whole, condition };
    }
    const oneStatement = r.asFirstPage || placed !== undefined;
    if (oneStatement && !r.entryOrder && searchesMetadata(whole.query) && !counts.metadata) {
      return { ask: 'metadata', list: plannedList(dialect, whole) };
    }
  }
  if (leadChoice(r) && !counts.entryLeads) return { ask: 'entry-leads', list: whole };
  return undefined;
}

/**
 * SQLite: whether a ranged list's page walks the sort's index rather than reading the range's,
 * from the slice's count and the range's bucket counts. A page the amount classes place walks
 * from its bucket, skipping nothing before it.
 */
function walkChosen(r: PageRequest, share: { slice: number; covered: number }): boolean {
  const { offset, perPage } = r.paging;
  const sortCost = sqliteSortCost(skipFromNearerEnd(share.covered, offset, perPage) + perPage);
  return walkIsCheaper(share, r.placed?.sortKeys !== undefined ? 0 : offset, perPage, sortCost);
}

/** The page's plan, from the request and the answers nextQuestion asked for. */
export function planPage(r: PageRequest, counts: PlanCounts): PagePlan {
  const { dialect, tuning, paging, whole, entryOrder, asFirstPage, placed } = r;
  const planning = PLANNING[dialect];
  const walk = planning.countsChooseFirst && counts.rangeShare ? walkChosen(r, counts.rangeShare) : undefined;
  const condition = planning.countsChooseFirst && walk === undefined && !placed ? keyedConditionOf(whole.table, whole.scope, whole.query) : undefined;
  const keyedPlan = condition && counts.keyed && keyedPlanOf(counts.keyed, whole.query, condition, paging.offset, paging.perPage, !asFirstPage);
  // SQLite: a sliver holding more rows than a walk to the page reads leaves the page to the walk.
  const slivered =
    walk === true && counts.sliverRows !== undefined && counts.rangeShare
      ? sliversAreCheaper({ ...counts.rangeShare, sliver: counts.sliverRows }, paging.offset, paging.perPage)
      : true;
  const search = placed?.sortKeys && (walk === false || !slivered) ? undefined : placed;
  const rows: RowsWriting = keyedPlan && condition ? writing(keyedPlan.walk, condition.column) : search?.sortKeys ? {} : writing(walk);
  if (entryOrder) {
    const lead = leadChoice(r) && counts.entryLeads ? entryOrderLead(whole.query, counts.entryLeads) : undefined;
    return { way: 'entries', list: whole, ...(lead !== undefined ? { lead } : {}) };
  }
  if (search) {
    // A page placed by amount classes walks the sort's index (placedPage): its range is no literal.
    const list = search.sortKeys ? whole : plannedList(dialect, whole);
    return { way: 'buckets', list, total: totalWayOf(list), search, rows };
  }
  if (!asFirstPage) {
    const list = plannedList(dialect, whole);
    return { way: 'snapshot', list, total: totalWayOf(list, rows.keyed), rows };
  }
  if (planning.choosesInStatement && searchesMetadata(whole.query))
    return { way: 'metadata-choice', list: plannedList(dialect, whole), choose: tuning.metadataPlan ?? 'counts' };
  if (planning.choosesInStatement && plansByCounts(whole)) return { way: 'range-choice', list: whole };
  const list = plannedList(dialect, whole);
  const metadata = planning.countsChooseFirst && counts.metadata ? metadataChoice(tuning, list, counts.metadata, paging.offset, paging.perPage) : undefined;
  return {
    way: 'offset',
    list,
    total: totalWayOf(list, rows.keyed, metadata?.countBy),
    rows: metadata ? { ...rows, metadata: metadata.rows } : rows,
    skipInIndex: skipsInIndex(r, list),
  };
}

const writing = (walk: boolean | undefined, keyed?: string): RowsWriting => ({
  ...(walk !== undefined ? { walk } : {}),
  ...(keyed !== undefined ? { keyed } : {}),
});

/** A metadata search's count and rows, chosen by its counts (or as the tuning fixes it), `skip` rows from the nearer end. */
function metadataChoice(tuning: ListTuning, list: ListShape, counts: MetadataCounts, skip: number, perPage: number) {
  const keys = list.query.conditions.filter((c) => c.match === 'metadata').length;
  const probe = tuning.metadataPlan ? tuning.metadataPlan === 'probe' : probeIsCheaper(counts, skip, perPage, keys);
  return {
    countBy: metadataCountOf(list.scope, list.query, counts),
    rows: probe ? ({ probe: true } as const) : { lead: counts.lead },
  };
}

/**
 * From this OFFSET on, a first page of PostgreSQL skips in the index alone; below it the few
 * table rows cost about what a second index descent does (decision 0005).
 */
const SKIP_IN_INDEX_FROM = 100;

/**
 * PostgreSQL: whether a first page skips its OFFSET in the sort's index alone (pageFromRowSelect),
 * for lists whose rows are a run of the sort's index in one direction (those bucket counts place).
 */
function skipsInIndex(r: PageRequest, list: ListShape): boolean {
  if (!PLANNING[r.dialect].skipsInIndex || r.paging.offset < SKIP_IN_INDEX_FROM || !bucketSearchOf(list, list.query)) return false;
  const order = totalOrder(list.query.sort);
  return order.every((k) => k.direction === order[0].direction);
}

/**
 * A one-statement plan's page read the slow exact way, in a snapshot: bucket counts that disagree
 * with the rows cannot happen, but if they ever did the page is not answered empty.
 */
export function snapshotFallbackOf(r: PageRequest, plan: OneStatementPlan): SnapshotPlan {
  switch (plan.way) {
    case 'range-choice':
    case 'metadata-choice': {
      const list = plannedList(r.dialect, r.whole);
      return { way: 'snapshot', list, total: totalWayOf(list), rows: {} };
    }
    case 'entries':
      return { way: 'snapshot', list: plan.list, total: totalWayOf(plan.list), rows: {} };
    default:
      return { way: 'snapshot', list: plan.list, total: plan.total, rows: plan.rows };
  }
}

/**
 * A snapshot plan of a metadata search, once its counts are read in the snapshot: how its total is
 * counted, and (given the total) how its rows are found from the nearer end.
 */
export function countedMetadataPlan(
  plan: SnapshotPlan,
  counts: MetadataCounts,
  tuning: ListTuning,
  total: number | undefined,
  paging: PageParams,
): SnapshotPlan {
  const countBy = metadataCountOf(plan.list.scope, plan.list.query, counts);
  if (total === undefined) return { ...plan, total: { from: 'metadata', count: countBy } };
  const { rows } = metadataChoice(tuning, plan.list, counts, skipFromNearerEnd(total, paging.offset, paging.perPage), paging.perPage);
  return { ...plan, total: { from: 'metadata', count: countBy }, rows: { ...plan.rows, metadata: rows } };
}

/** How a snapshot plan's rows are read, its total known: nothing past the end; otherwise from the nearer end. */
export function planRows(dialect: Dialect, tuning: ListTuning, plan: SnapshotPlan, total: number, paging: PageParams): RowsPlan | undefined {
  const { offset, perPage } = paging;
  if (offset >= total) return undefined;
  const limit = Math.min(perPage, total - offset);
  const fromEnd = total - offset - limit < offset;
  const skip = fromEnd ? total - offset - limit : offset;
  const { table, scope, query, ranged } = plan.list;
  const sorted = fromEnd ? reversed(query) : query;
  // A created_at range in amount order: placed in its amount class when that costs less than the
  // other way: the walk, or on SQLite the range's index sorted, which costs each entry of the range.
  const classesFirst =
    skip >= tuning.plainOffsetUpTo && ranged && amountOrderPlaceable(table, scope, sorted, ranged)
      ? { rival: plan.rows.walk === false ? sqliteSortCost(skip + limit) * total : undefined }
      : undefined;
  const read = plan.rows.walk === false ? 'sorted-ids' : skip < tuning.plainOffsetUpTo ? 'offset' : PLANNING[dialect].deepRead;
  return { fromEnd, skip, limit, read, ...(classesFirst ? { classesFirst } : {}) };
}

/** Where a list's total comes from: its slice's counts, its range's buckets, a metadata search's counts, a keyed filter's index, or its rows. */
export function totalWayOf(list: ListShape, keyed?: string, countBy?: MetadataCount): TotalWay {
  if (list.slice) return { from: 'list_counts' };
  if (list.ranged) return { from: 'list_buckets' };
  if (searchesMetadata(list.query)) return { from: 'metadata', count: countBy ?? (totalIsValueCount(list.scope, list.query) ? 'entries' : { lead: 0 }) };
  if (keyed !== undefined) return { from: 'keyed-index', column: keyed };
  return { from: 'rows' };
}

/**
 * The query a page's rows are read by: the list's, its range written unindexed when the page walks
 * the sort's index, its metadata search written as probes when the page walks the list's index.
 */
export function rowsQueryOf(dialect: Dialect, list: ListShape, rows: RowsWriting): ListQuery {
  const ordered = rows.walk === undefined ? list.query : rows.walk ? withRangesWritten(list.query, 'unindexed') : withSortUnindexed(list.query);
  const query = rows.keyed === undefined ? ordered : withKeyedWriting(ordered, rows.keyed, rows.walk);
  // PostgreSQL reads each row it tests: its probes take the row's created_at too (withMetadataProbed).
  if (rows.metadata && 'probe' in rows.metadata) return withMetadataProbed(query, PLANNING[dialect].probeReadsRow);
  return rows.metadata ? withMetadataLead(query, rows.metadata.lead) : query;
}

/**
 * The list as its statements write it: on PostgreSQL a range on another column than the sort's
 * first as a literal (planned for its value), and a list counted row by row that several indexes
 * serve with its filter values as literals (valuePlans.ts); on SQLite a list of several dimensions
 * read in the leading one's index (leadDimension.ts). Writing only: its slice and range stand.
 */
export function plannedList(dialect: Dialect, list: ListShape): ListShape {
  const { readsLeadDimension, writesLiterals } = PLANNING[dialect];
  const led = readsLeadDimension ? withLeadDimension(list.table, list.scope, list.query) : list.query;
  const query = writesLiterals && hasRangeOffTheSort(led) ? withRangesWritten(led, 'literal') : led;
  const byValues = writesLiterals && !list.slice && !list.ranged && !searchesMetadata(query) && picksIndexByValues(query);
  return { ...list, query: byValues ? withValuesLiteral(query) : query };
}

/**
 * Whether a page's one statement costs the same whatever the list's size (SQLite: read inline): a
 * counted slice, whole or one value of one dimension sorted by a bucketed column, also narrowed by
 * a range of that sort column (decision 0102). Told from the conditions, not the slice's values:
 * a statement built once per shape sees placeholders there.
 */
export function boundedPage(list: ListShape): boolean {
  const { slice, ranged, scope, query } = list;
  if (!slice && !ranged) return false;
  const sortColumn = query.sort[0].column;
  const others = query.conditions.filter((c) => !(ranged && c.match === 'range' && c.column === sortColumn));
  // A range off the sort is walked or sorted, either way by as many rows as its data lays out.
  if (ranged && (others.some((c) => c.match === 'range') || !isBucketed(sortColumn))) return false;
  const narrowing = others.length + (scope.accountId !== undefined ? 1 : 0);
  if (narrowing === 0) return true;
  return narrowing === 1 && others.every((c) => c.match === 'in' && c.values.length === 1) && isBucketed(sortColumn);
}
