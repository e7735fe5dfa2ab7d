import type { Kysely } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import { StatementTemplates, type SlotMaker } from '../../db/statementTemplates.ts';
import { DIMENSIONS } from '../counters/countedSlices.ts';
import type { BucketSegment } from '../counters/rangeBuckets.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { AmountSliver } from '../plan/amountClassRanges.ts';
import type { ListSlice } from '../plan/listSlice.ts';
import type { ListShape, OneStatementPlan, RangedShape } from '../plan/pagePlan.ts';
import type { RangedTotal } from '../plan/rangedTotal.ts';
import { hasLiteral } from '../plan/valuePlans.ts';
import { flagged } from '../../db/driverFlags.ts';
import { rangeShareSelect } from './listPageQueries.ts';
import { pageStatement } from './pageStatements.ts';

const templates = new StatementTemplates();

/**
 * The compiled statement of a one-statement plan, built once per plan shape (db/statementTemplates.ts):
 * a placeholder for every value (tenant, account, endpoint, filter values, the slice's values,
 * offset, per_page), keyed by everything the SQL is decided from. Undefined for a `contains`
 * filter (its SQL value, the LIKE pattern, is derived from the request's) and for values written
 * as literals (planned per value): those are built per request.
 */
export function pageStatementCompiled(db: Kysely<Database>, dialect: Dialect, plan: OneStatementPlan, paging: PageParams) {
  const { scope, query, slice, ranged } = plan.list;
  if (query.conditions.some((c) => c.match === 'contains') || hasLiteral(query)) return undefined;
  const search = plan.way === 'buckets' ? plan.search : undefined;
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
  if (ranged) {
    addSegmentValues(values, ranged);
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
    plan.list.table,
    scope.accountId !== undefined,
    scope.endpointId !== undefined,
    query.sort,
    query.entriesBehind === true,
    // The plan less its list (the list's shape follows): its way and every choice it made.
    { ...plan, list: undefined, search: undefined },
    search
      ? [
          search.kind,
          search.column,
          search.direction,
          search.sortKeys ?? null,
          search.subtractKeys === true,
          search.slivers?.map((s) => [s.sign, s.low === undefined, s.high === undefined]) ?? null,
        ]
      : null,
    query.conditions.map((c) => [c.column, c.match, c.match === 'in' || c.match === 'metadata' ? c.values.length : c.match === 'range' ? c.op : 0]),
    slice ? DIMENSIONS.map((d) => slice[d].length) : null,
    ranged
      ? [
          ranged.kind,
          ranged.column,
          narrowingKey(ranged.slice),
          ranged.segments.map((seg) => [seg.level, seg.to === undefined]),
          ranged.high === undefined,
          search ? [ranged.below, ranged.above].map((runs) => runs.map((seg) => [seg.level, seg.from === undefined, seg.to === undefined])) : null,
        ]
      : null,
  ]);
  return templates.statement(
    key,
    (slot) => {
      const list = slottedList(slot, plan.list);
      const slottedPaging = { ...paging, offset: slot<number>('offset'), perPage: slot<number>('perPage') };
      if (plan.way !== 'buckets') return pageStatement(db, dialect, { ...plan, list } as OneStatementPlan, slottedPaging);
      // A ranged list's descent runs in its slice (bucketSearchOf).
      const slottedSearch = {
        ...plan.search,
        tenantId: slot<string>('tenant'),
        slice: (list.ranged?.slice ?? list.slice) as ListSlice,
        ...(plan.search.slivers ? { slivers: slottedSlivers(slot, plan.search.slivers) } : {}),
      };
      return pageStatement(db, dialect, { ...plan, list, search: slottedSearch }, slottedPaging);
    },
    values,
  );
}

/** Which dimensions a slice narrows, and by how many values: `''` (all) is written as no test at all, one value as one. */
const narrowingKey = (slice: ListSlice) => DIMENSIONS.map((d) => (slice[d][0] === '' ? 0 : slice[d].length));

/** A ranged list's slice values and its covered segments' bucket numbers, named as slottedRanged names them. */
function addSegmentValues(values: Record<string, unknown>, ranged: RangedTotal): void {
  for (const d of DIMENSIONS) ranged.slice[d].forEach((v, j) => (values[`r.${d}${j}`] = v));
  ranged.segments.forEach((seg, k) => {
    values[`r${k}.from`] = seg.from;
    if (seg.to !== undefined) values[`r${k}.to`] = seg.to;
  });
}

/**
 * SQLite: the counts a ranged list's plan is chosen from (rangeShareSelect), from its shape's
 * template: built by Kysely, this statement cost about as much as running it, on every request of
 * a range. Keyed by what its SQL is decided from: the dimensions the slice narrows (not only how
 * many values each has: `''`, all, is written as no test) and the covered runs' levels.
 */
export function rangeShareCompiled(db: Kysely<Database>, list: RangedShape) {
  const { table, scope, ranged } = list;
  const values: Record<string, unknown> = { tenant: scope.tenantId };
  addSegmentValues(values, ranged);
  const key = JSON.stringify([
    'range-share',
    table,
    ranged.column,
    narrowingKey(ranged.slice),
    ranged.segments.map((seg) => [seg.level, seg.to === undefined]),
  ]);
  return templates.statement(
    key,
    (slot) => flagged(rangeShareSelect(db, table, { tenantId: slot<string>('tenant') }, slottedRanged(slot, ranged)), { bounded: true }),
    values,
  );
}

/** The list with a placeholder for every value pageStatementCompiled names. */
function slottedList(slot: SlotMaker, list: ListShape): ListShape {
  const { scope, query, slice, ranged } = list;
  return {
    table: list.table,
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
    ...(slice ? { slice: slottedSlice(slot, '', slice) } : {}),
    ...(ranged ? { ranged: slottedRanged(slot, ranged) } : {}),
  };
}

function slottedRanged(slot: SlotMaker, ranged: RangedTotal): RangedTotal {
  return {
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
  };
}

/**
 * A slice with a placeholder for every value, but '' (all) kept as it is: which dimensions a slice
 * narrows is decided by the list's shape (the key), and the changes not folded yet are matched
 * on those alone (counters/changeTail.ts).
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

/** A one-statement plan's statement: its shape's template, or built for this request alone. */
export function pageTemplateOrStatement(db: Kysely<Database>, dialect: Dialect, plan: OneStatementPlan, paging: PageParams) {
  return pageStatementCompiled(db, dialect, plan, paging) ?? pageStatement(db, dialect, plan, paging).compile();
}
