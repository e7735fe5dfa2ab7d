import { sql, type Compilable, type Expression, type Kysely, type QueryCreator, type SelectQueryBuilder } from 'kysely';
import { flagged } from '../../db/driverFlags.ts';
import type { Database, Dialect } from '../../db/schema.ts';
import type { BucketLevel } from '../counters/sortBuckets.ts';
import type { ListShape } from '../plan/pagePlan.ts';
import { boundedPage } from '../plan/planPage.ts';
import type { RangeWriting } from '../plan/rangePlans.ts';
import { hasLiteral } from '../plan/valuePlans.ts';
import { withClause, type NamedCte } from './findInBuckets.ts';

type PageRows = SelectQueryBuilder<Database, 'payments', { resource: string }>;
// biome-ignore lint/suspicious/noExplicitAny: a list's total, from whichever table its TotalWay reads
type TotalSelect = SelectQueryBuilder<any, any, { n: unknown }>;
type PageRowsOf = (outer?: QueryCreator<Database>) => PageRows;

/**
 * How each database writes a page's one statement, in one place. PostgreSQL: `select t.n as total,
 * p.resource from t left join lateral (page) p on true` (one row with a null resource when the page
 * is empty), a named prepared statement unless values are literals. SQLite: the page's own select
 * with the total a column of each row, read in one call, inline when its cost is bounded.
 */
export interface StatementForm {
  /** A ranged total with its low end closed (PostgreSQL's planner estimates the closed bound better). */
  readonly closesLowEnd: boolean;
  /** How a page walking the sort's index writes its range (rangePlans.ts). */
  readonly walkedRange: RangeWriting;
  /** The range's bound on a placed page's starting side steers no index (SQLite: decision 0012). */
  readonly startSideUnindexed: boolean;
  /** Statements built whole by a builder of their own (entry order) are prepared. */
  readonly prepares: boolean;
  /** What a sliver's rows are grouped by: their finest bucket. */
  grouping(finest: BucketLevel): string;
  /** A statement that reads a page, flagged as this database reads it. */
  asRead(list: ListShape, statement: Compilable): Compilable;
  /** The page and its total as one statement; `ctes` go before both. */
  pageWithTotal(db: Kysely<Database>, list: ListShape, rows: PageRowsOf, total: TotalSelect, ctes?: NamedCte[]): Compilable;
  /** A page placed by a bucket descent (its common table expressions, `t` the total) as one statement. */
  placedWithTotal(db: Kysely<Database>, list: ListShape, ctes: NamedCte[], rows: PageRowsOf): Compilable;
}

/** How many leading characters of SQLite's stored time (`2026-08-01T13:…Z`, UTC) name its day or its hour. */
const TIME_TEXT_PREFIX: Record<number, number> = { 86400000: 10, 3600000: 13 };

/** A statement compiled against `db` when its caller compiles it. */
export const compilable = (statement: { compile(db: Kysely<Database>): ReturnType<Compilable['compile']> }, db: Kysely<Database>): Compilable => ({
  compile: () => statement.compile(db),
});

/** SQLite: the common table expressions attached to the page's own select. */
function withCtes(db: Kysely<Database>, ctes: NamedCte[]): QueryCreator<Database> {
  return ctes.reduce(
    (creator, cte) => creator.with(cte.name, () => cte.expression as Expression<Record<string, unknown>>) as unknown as QueryCreator<Database>,
    db as QueryCreator<Database>,
  );
}

const sqlite: StatementForm = {
  closesLowEnd: false,
  walkedRange: 'unindexed',
  startSideUnindexed: true,
  prepares: false,
  // Grouped by the stored text's day or hour: three times cheaper than each row's bucket number.
  grouping: (finest) => {
    const prefix = TIME_TEXT_PREFIX[finest.high(0) - finest.low(0)];
    return prefix ? `substr(created_at, 1, ${prefix})` : finest.sql('sqlite');
  },
  // At most per_page rows, read in one call; inline on the writer when its cost is bounded (decision 0013).
  asRead: (list, statement) => flagged(statement, boundedPage(list) ? { readAtOnce: true, bounded: true } : { readAtOnce: true }),
  pageWithTotal: (db, list, rows, total, ctes = []) => sqlite.asRead(list, rows(withCtes(db, ctes)).select(total.as('total'))),
  placedWithTotal: (db, list, ctes, rows) => sqlite.asRead(list, rows(withCtes(db, ctes)).select(sql<number>`(select n from t)`.as('total'))),
};

const postgres: StatementForm = {
  closesLowEnd: true,
  walkedRange: 'opaque',
  startSideUnindexed: false,
  prepares: true,
  grouping: (finest) => finest.sql('postgres'),
  asRead: (_list, statement) => statement,
  pageWithTotal: (db, list, rows, total, ctes = []) => {
    const head = ctes.length ? sql`with ${withClause(ctes)}\n    ` : sql``;
    const statement = sql`${head}select t.n as total, p.resource from (${total}) as t left join lateral (${rows()}) as p on true`;
    // A range or values written as literals make the text differ per value: sent unnamed, planned per call.
    return flagged(compilable(statement, db), hasLiteral(list.query) ? {} : { prepared: true });
  },
  placedWithTotal: (db, _list, ctes, rows) => {
    const statement = sql`with ${withClause(ctes)}
    select t.n as total, p.resource from t left join lateral (${rows()}) as p on true`;
    return flagged(compilable(statement, db), { prepared: true });
  },
};

export const FORMS: Readonly<Record<Dialect, StatementForm>> = { sqlite, postgres };
