import { CompiledQuery, sql, type Compilable, type RawBuilder } from 'kysely';
import { driverFlagsOf, withFlags } from './driverFlags.ts';

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
 * A guard's text with its placeholders numbered after `shift` others, to follow them in one
 * statement. Only guards' texts are renumbered: ours and short, with no literal a `$` could hide in.
 */
const shifted = (guard: CompiledQuery, shift: number) => guard.sql.replace(PLACEHOLDER, (_, n: string) => `$${Number(n) + shift}`);

/**
 * PostgreSQL: a guard's compiled select as a fragment of a statement Kysely builds, its values
 * that statement's parameters (numbered where they land). Ours and short, as for `shifted`.
 */
export function guardFragment(guard: CompiledQuery): RawBuilder<unknown> {
  const pieces = guard.sql.split(PLACEHOLDER);
  return sql.join(
    pieces.map((piece, i) => (i % 2 === 0 ? sql.raw(piece) : sql`${guard.parameters[Number(piece) - 1]}`)),
    sql``,
  );
}

/**
 * PostgreSQL: `statement`'s rows, each with the guard's `noted` as one more column, and no row
 * unless the guard's select yields one. The guard is the outer side of a join that reads the
 * statement laterally, so an empty guard leaves the statement unread; the statement's own text
 * is left as it is (its placeholders keep their numbers, the guard's come after them). Its
 * driver flags carry over: a prepared statement stays so, under a name of its own.
 */
export function guardedStatement(statement: CompiledQuery, guard: CompiledQuery): CompiledQuery {
  const sql = `select s.*, g.noted from (${shifted(guard, statement.parameters.length)}) as g cross join lateral (${statement.sql}) as s`;
  return withFlags(CompiledQuery.raw(sql, [...statement.parameters, ...guard.parameters]), driverFlagsOf(statement));
}

/**
 * Two conditions as one guard: its select yields a row only when both hold (the first's `noted`
 * is the one that comes back; the second's condition is all it contributes), and its check runs
 * the first's check before the second's, so the first's refusal is the one answered when both
 * fail (the key's 401 before an account's 404, as the request's own lookups would). Either may
 * be absent: then the other alone.
 */
export function guardsTogether(first: StatementGuard | undefined, second: StatementGuard | undefined): StatementGuard | undefined {
  if (!first || !second) return first ?? second;
  return {
    select: {
      compile: () => {
        const a = first.select.compile();
        const b = second.select.compile();
        return CompiledQuery.raw(`select a.noted from (${a.sql}) as a cross join (${shifted(b, a.parameters.length)}) as b`, [
          ...a.parameters,
          ...b.parameters,
        ]);
      },
    },
    held(noted) {
      first.held(noted);
      second.held(false);
    },
    async check() {
      await first.check();
      await second.check();
    },
  };
}
