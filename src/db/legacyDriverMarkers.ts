import { PostgresQueryCompiler, type Compilable, type CompiledQuery, type QueryId, type RootOperationNode } from 'kysely';
import { flagged, withFlags, type DriverFlags } from './driverFlags.ts';

/*
 * Deprecated: the driver flags as they were, SQL comments put before a statement's text. Only
 * src/lists/fetchListPage.ts still writes them, while it is being rewritten; delete this file
 * once it flags its statements (driverFlags.ts). Until then a marker given to `marked` becomes
 * its flag, and one written into a `sql` template is taken off the text when it is compiled and
 * set as its flag: no statement is sent with one.
 */

/** @deprecated Wrap the statement in `flagged(statement, { prepared: true })` (driverFlags.ts). */
export const PREPARED = '/* prepared */ ';
/** @deprecated `flagged(statement, { bounded: true })` (driverFlags.ts). */
export const BOUNDED = '/* bounded */ ';
/** @deprecated `flagged(statement, { readAtOnce: true })` (driverFlags.ts). */
export const READ_AT_ONCE = '/* read at once */ ';

const FLAG_OF: ReadonlyMap<string, DriverFlags> = new Map<string, DriverFlags>([
  [PREPARED, { prepared: true }],
  [BOUNDED, { bounded: true }],
  [READ_AT_ONCE, { readAtOnce: true }],
]);

/** @deprecated `flagged(statement, flags)` (driverFlags.ts). */
export function marked<O>(marker: string, statement: Compilable<O>): Compilable<O> {
  const flags = FLAG_OF.get(marker);
  if (!flags) throw new Error(`not a driver marker: ${JSON.stringify(marker)}`);
  return flagged(statement, flags);
}

/** `compiled` without the markers its text begins with, flagged with theirs instead (itself when it has none). */
export function liftedLegacyMarkers(compiled: CompiledQuery): CompiledQuery {
  if (!compiled.sql.startsWith('/* ')) return compiled;
  let sql = compiled.sql;
  let flags: DriverFlags = {};
  for (let lifted = true; lifted; ) {
    lifted = false;
    for (const [marker, flag] of FLAG_OF) {
      if (!sql.startsWith(marker)) continue;
      sql = sql.slice(marker.length);
      flags = { ...flags, ...flag };
      lifted = true;
    }
  }
  return sql === compiled.sql ? compiled : withFlags({ ...compiled, sql }, flags);
}

/** PostgreSQL's compiler, lifting the markers (the only dialect fetchListPage.ts writes one into a template for). */
export class MarkerLiftingPostgresQueryCompiler extends PostgresQueryCompiler {
  override compileQuery(node: RootOperationNode, queryId: QueryId): CompiledQuery {
    return liftedLegacyMarkers(super.compileQuery(node, queryId));
  }
}
