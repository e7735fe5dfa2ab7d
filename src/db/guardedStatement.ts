import { CompiledQuery, type Compilable } from 'kysely';
import { PREPARED } from './preparedStatements.ts';

/**
 * A condition a statement's answer depends on, checked by that statement itself: its select
 * yields one row when the condition holds and none when not, so the guarded statement answers
 * nothing at all unless it held at that moment (one snapshot, one round trip). Auth's key check
 * is one (auth/knownKeys.ts): the key valid, of that tenant, with the scope, at request time.
 */
export interface StatementGuard {
  /** One row when the condition holds, none when not; its one column `noted` (a boolean) comes back with every row. */
  readonly select: Compilable;
  /** The guarded statement answered rows: the condition held. `noted` is the guard's column. */
  held(noted: boolean): void;
  /** Checks the condition in a statement of its own (when no guarded statement can carry it, or one answered nothing); throws what the request must answer instead. */
  check(): Promise<void>;
}

/** PostgreSQL's numbered placeholders: `$1`, `$2`, … */
const PLACEHOLDER = /\$(\d+)/g;

/**
 * PostgreSQL: `statement`'s rows, each with the guard's `noted` as one more column, and no row
 * unless the guard's select yields one. The guard is the outer side of a join that reads the
 * statement laterally, so an empty guard leaves the statement unread; the statement's own text
 * is left as it is (its placeholders keep their numbers, the guard's come after them). A
 * statement marked PREPARED stays so, under a name of its own.
 */
export function guardedStatement(statement: CompiledQuery, guard: CompiledQuery): CompiledQuery {
  const prepared = statement.sql.startsWith(PREPARED);
  const body = prepared ? statement.sql.slice(PREPARED.length) : statement.sql;
  const shift = statement.parameters.length;
  // Only the guard's text is renumbered: it is ours and short, with no literal a `$` could hide in.
  const guardSql = guard.sql.replace(PLACEHOLDER, (_, n: string) => `$${Number(n) + shift}`);
  const sql = `${prepared ? PREPARED : ''}select s.*, g.noted from (${guardSql}) as g cross join lateral (${body}) as s`;
  return CompiledQuery.raw(sql, [...statement.parameters, ...guard.parameters]);
}
