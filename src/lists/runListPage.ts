import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ReadRouting } from '../db/readReplicas.ts';
import type { Database, Dialect } from '../db/schema.ts';
import { guardedStatement, type StatementGuard } from '../db/guardedStatement.ts';
import { streamRowTexts } from '../db/streamRowTexts.ts';
import type { PageParams } from './request/pageParams.ts';
import type { ListQuery } from './request/parseListQuery.ts';
import type { ListScope, ListTable } from './request/listScope.ts';
import { DEFAULT_TUNING, type ListTuning, type PageStrategy } from './plan/listTuning.ts';
import { searchesMetadata } from './plan/metadataPlans.ts';
import { readsMovingColumns, withEntriesBehind } from './plan/movingColumns.ts';
import type { OneStatementPlan, PageRequest, PlanCounts, RowsPlan, SnapshotPlan } from './plan/pagePlan.ts';
import {
  countedMetadataPlan,
  keyCheckedInStatement,
  nextQuestion,
  pageRequestOf,
  plannedList,
  planPage,
  planRows,
  rowsQueryOf,
  snapshotFallbackOf,
  totalWayOf,
} from './plan/planPage.ts';
import { reversed } from './plan/totalOrder.ts';
import { amountOrderPage } from './sql/amountOrderPage.ts';
import { entriesBehind } from './sql/entriesCurrent.ts';
import { afterBoundarySelect, deferredJoinPageSelect, offsetPageSelect, sortedIdsPageSelect } from './sql/listPageQueries.ts';
import { skipInHops, totalSelect } from './sql/pageStatements.ts';
import { pageTemplateOrStatement } from './sql/pageTemplates.ts';
import { answerOf, metadataCounts } from './sql/planCounts.ts';

/**
 * Runs a page's plan (plan/planPage.ts): the counts it asks for, then its one statement, or its
 * statements in one read-only snapshot. Total and rows always come from one snapshot of the data
 * at request time; nothing is remembered between requests (decision 0002).
 */

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

/**
 * One page of a list and its exact total, read in one snapshot, so `data` is exactly what OFFSET gives at that
 * moment and agrees with `total` (decision 0002). Rows go to `add` in order (on PostgreSQL as the driver parses
 * them). `guard`: the caller's key, not yet checked; on PostgreSQL the page's own statement checks it (no row
 * unless it holds; its own lookup then says why), otherwise it is looked up first (decision 0017).
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
  if (readsMovingColumns(table, query)) {
    await guard?.check();
    return written(await movingColumnsPage(db, dialect, tuning, table, scope, query, paging), add);
  }
  const request = pageRequestOf(dialect, tuning, table, scope, query, paging);
  if (guard && !keyCheckedInStatement(request)) await guard.check();
  const plan = planPage(request, await countsOf(db, request));
  if (plan.way !== 'snapshot') {
    const compiled = pageTemplateOrStatement(db, dialect, plan, paging);
    const how = strategyOf(plan);
    if (dialect === 'postgres') {
      const page = await streamedPage(ctx.db, compiled, paging.offset, how, add, guard);
      if (!page) {
        // The key failed the check: its lookup throws what refuses it. Held meanwhile: read again, checked.
        await guard?.check();
        return writeListPage(ctx, table, scope, query, paging, add);
      }
      if (page.count > 0 || page.strategy === 'past-end') return page;
    } else {
      const page = pageOfRows((await db.executeQuery<RowWithTotal>(compiled)).rows, paging.offset, how);
      if (page && (page.rows.length > 0 || page.strategy === 'past-end')) return written(page, add);
    }
  }
  // Counts that disagree with the rows cannot happen (one snapshot, kept by every write); if they
  // ever did, the page is found the slow exact way rather than answered empty.
  const snapshot = plan.way === 'snapshot' ? plan : snapshotFallbackOf(request, plan);
  return written(await readOnlySnapshot(db, dialect).execute((trx) => pageInSnapshot(trx, dialect, tuning, snapshot, paging)), add);
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

/** The counts the planner asks for, one question at a time (each answer may make the next needless). */
async function countsOf(db: Kysely<Database>, request: PageRequest): Promise<PlanCounts> {
  let counts: PlanCounts = {};
  for (let question = nextQuestion(request, counts); question; question = nextQuestion(request, counts)) {
    counts = { ...counts, ...(await answerOf(db, question)) };
  }
  return counts;
}

function strategyOf(plan: OneStatementPlan): PageStrategy {
  if (plan.way === 'buckets' || plan.way === 'entries') return plan.way;
  return plan.way === 'offset' && plan.rows.walk === false ? 'sorted-ids' : 'offset';
}

function readOnlySnapshot(db: Kysely<Database>, dialect: Dialect) {
  const transaction = db.transaction().setAccessMode('read only');
  return dialect === 'postgres' ? transaction.setIsolationLevel('repeatable read') : transaction;
}

/** A page and its total read in the caller's snapshot, statement by statement. */
async function pageInSnapshot(trx: Kysely<Database>, dialect: Dialect, tuning: ListTuning, plan: SnapshotPlan, paging: PageParams): Promise<ListPage> {
  const totalOf = async (p: SnapshotPlan) => Number((await totalSelect(trx, dialect, p.list, p.total).executeTakeFirstOrThrow()).n);
  if (!searchesMetadata(plan.list.query)) return pageOf(trx, dialect, tuning, plan, await totalOf(plan), paging);
  // A metadata search: its counts first, which choose how its total is counted and how its page is found.
  // PostgreSQL plans these statements for their values (a generic plan knows none: metadataPlans.ts).
  if (dialect === 'postgres') await sql`set local plan_cache_mode = force_custom_plan`.execute(trx);
  const counts = await metadataCounts(trx, plan.list);
  const counted = countedMetadataPlan(plan, counts, tuning, undefined, paging);
  // A search of one key, alone or with statuses: its total is the counts' sum just read (same snapshot), no second statement.
  const total = counted.total.from === 'metadata' && counted.total.count === 'entries' ? counts.matches : await totalOf(counted);
  return pageOf(trx, dialect, tuning, countedMetadataPlan(plan, counts, tuning, total, paging), total, paging);
}

/** The page inside one snapshot, its total known, from whichever end of the list is nearer (planRows). */
async function pageOf(db: Kysely<Database>, dialect: Dialect, tuning: ListTuning, plan: SnapshotPlan, total: number, paging: PageParams): Promise<ListPage> {
  const rowsPlan = planRows(dialect, tuning, plan, total, paging);
  if (!rowsPlan) return { total, rows: [], strategy: 'past-end' };
  const query = rowsQueryOf(dialect, plan.list, plan.rows);
  const page = await rowsOf(db, dialect, tuning, plan, rowsPlan, rowsPlan.fromEnd ? reversed(query) : query, total);
  return rowsPlan.fromEnd ? { total, rows: page.rows.reverse(), strategy: `${page.how}-from-end` } : { total, rows: page.rows, strategy: page.how };
}

/** A snapshot plan's rows as its RowsPlan reads them. */
async function rowsOf(db: Kysely<Database>, dialect: Dialect, tuning: ListTuning, plan: SnapshotPlan, rows: RowsPlan, query: ListQuery, total: number) {
  const { table, scope, ranged } = plan.list;
  const { skip, limit } = rows;
  const run = async (select: { execute(): Promise<Array<{ resource: string }>> }) => (await select.execute()).map((r) => r.resource);
  if (rows.classesFirst && ranged) {
    const request = { table, scope, listQuery: plan.list.query, query, ranged, skip, limit, total, rival: rows.classesFirst.rival };
    const placed = await amountOrderPage(db, dialect, request, tuning.classPlacement);
    if (placed) return { rows: placed, how: 'classes' as const };
  }
  switch (rows.read) {
    case 'sorted-ids':
      return { rows: await run(sortedIdsPageSelect(db, table, scope, query, skip, limit)), how: rows.read };
    case 'offset':
      return { rows: await run(offsetPageSelect(db, table, scope, query, skip, limit)), how: rows.read };
    case 'deferred-join':
      return { rows: await run(deferredJoinPageSelect(db, table, scope, query, skip, limit)), how: rows.read };
    case 'skip-hops': {
      const boundary = await skipInHops(db, table, scope, query, skip, tuning.skipHop);
      return { rows: boundary === null ? [] : await run(afterBoundarySelect(db, table, scope, query, boundary, limit)), how: rows.read };
    }
  }
}

/**
 * A metadata search of payments by status or amount (movingColumns.ts): in one snapshot, whether
 * its entries' copies of them are current, then the page from the entries if they are, else with
 * those conditions tested on the payments.
 */
async function movingColumnsPage(
  db: Kysely<Database>,
  dialect: Dialect,
  tuning: ListTuning,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
): Promise<ListPage> {
  return readOnlySnapshot(db, dialect).execute(async (trx) => {
    const current = !(await entriesBehind(trx, scope.tenantId, query));
    const request = pageRequestOf(dialect, tuning, table, scope, current ? query : withEntriesBehind(query), paging);
    if (request.entryOrder) {
      const plan = planPage(request, await countsOf(trx, request)) as OneStatementPlan;
      const page = pageOfRows((await trx.executeQuery<RowWithTotal>(pageTemplateOrStatement(trx, dialect, plan, paging))).rows, paging.offset, 'entries');
      if (page && (page.rows.length > 0 || page.strategy === 'past-end')) return page;
    }
    const list = plannedList(dialect, request.whole);
    return pageInSnapshot(trx, dialect, tuning, { way: 'snapshot', list, total: totalWayOf(list), rows: {} }, paging);
  });
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

function written({ total, rows, strategy }: ListPage, add: PageRowSink): WrittenPage {
  for (const row of rows) add(row);
  return { total, count: rows.length, strategy };
}
