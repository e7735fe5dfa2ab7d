import type { CompiledQuery } from 'kysely';

/**
 * What a driver is told about a statement besides its text and values. The code that builds a
 * statement sets them, and says there why; the drivers read them where they send it. They travel
 * beside the text, never in it: the text stays what the database runs.
 */
export interface DriverFlags {
  /**
   * PostgreSQL: sent as a named prepared statement, parsed and planned once per connection
   * instead of on every call (preparedStatements.ts). For statements whose planning costs more
   * than running them: at 1M payments a deep list page spent ~2 ms planning, ~1 ms executing.
   */
  readonly prepared?: true;
  /**
   * SQLite: a read whose cost is bounded whatever the data's size (an index lookup of one row; a
   * page placed by maintained counts and read through an index with LIMIT). It runs at once on
   * the request's own (writing) connection instead of on a reader within the statement timeout:
   * the hop to a reader halved the rate of cheap pages, and such a read has nothing for the limit
   * to cut. Every read not flagged goes to a reader (nodeSqliteDialect.ts).
   */
  readonly bounded?: true;
  /**
   * SQLite: a read returning a bounded number of rows (a list page, at most 5000), read in one
   * call rather than row by row with yields between: row by row costs about twice per row, and
   * 5000 rows take a few ms in one go. Unbounded reads stay row by row (nodeSqliteDialect.ts).
   */
  readonly readAtOnce?: true;
  /**
   * PostgreSQL: sent by itself, without the settings a statement carries behind a pooler: those
   * would make it part of an implicit transaction, where VACUUM may not run. Its text names
   * its schema (no search_path travels with it).
   */
  readonly alone?: true;
}

const NONE: DriverFlags = Object.freeze({});

/** Keyed by the compiled query itself: Kysely hands that very object on to the driver's connection (executeQuery, streamQuery). */
const flagsOf = new WeakMap<CompiledQuery, DriverFlags>();

/** The flags set on `compiled`; none when it was never flagged. */
export function driverFlagsOf(compiled: CompiledQuery): DriverFlags {
  return flagsOf.get(compiled) ?? NONE;
}

/**
 * A copy of `compiled` with `flags` set beside those it already has. A copy: the same compiled
 * object may be sent elsewhere as it is (a cached one, a test's), and must stay unflagged there.
 */
export function withFlags<O>(compiled: CompiledQuery<O>, flags: DriverFlags): CompiledQuery<O> {
  const copy: CompiledQuery<O> = Object.freeze({ ...compiled });
  flagsOf.set(copy, { ...flagsOf.get(compiled), ...flags });
  return copy;
}

/**
 * `statement`, whose every compilation is flagged with `flags` beside those it has. Whatever
 * `compile` takes is passed on: a query builder's compiles alone, a `sql` template's against a
 * database handle.
 */
export function flagged<A extends unknown[], O>(
  statement: { compile(...args: A): CompiledQuery<O> },
  flags: DriverFlags,
): { compile(...args: A): CompiledQuery<O> } {
  return { compile: (...args: A) => withFlags(statement.compile(...args), flags) };
}
