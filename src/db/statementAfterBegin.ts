import { StatementWithSettings, type PgConnection } from './poolerSafeClient.ts';

/** How Kysely's PostgreSQL driver begins a transaction without a mode: what PreparingConnection defers. */
export const PLAIN_BEGIN = 'begin';

/** Statements whose BEGIN is still to go with them, until that BEGIN's answer arrives. */
const awaitingBegin = new WeakSet<object>();
/** Their names, kept apart from `name` (see the accessor). */
const names = new WeakMap<object, string | undefined>();

/**
 * A transaction's first statement sent with its BEGIN: parse, bind and execute of `begin`, then
 * the statement's own (and a pooler's settings between, poolerSafeClient.ts), one Sync. A BEGIN
 * inside the batch's implicit transaction makes it an explicit one that outlives the Sync, so
 * this is the same transaction as a BEGIN sent alone, one round trip sooner (decision 0096). The
 * BEGIN's answer is dropped.
 */
export class StatementAfterBegin extends StatementWithSettings {
  constructor(config: { name?: string; text: string; values?: unknown[] }) {
    // Extended protocol always: the simple one would answer the BEGIN with a ReadyForQuery of its own.
    super({ ...config, queryMode: 'extended' });
  }

  /**
   * node-postgres records a named statement as parsed at the first ParseComplete while it is the
   * active query: the BEGIN's comes first, so the name is hidden until the BEGIN is answered
   * (else a statement whose own parse failed would be taken as parsed from then on).
   */
  override get name(): string | undefined {
    return awaitingBegin.has(this) ? undefined : names.get(this);
  }
  override set name(value: string | undefined) {
    names.set(this, value);
  }

  override prepare(connection: PgConnection): void {
    connection.parse({ text: PLAIN_BEGIN, name: '', types: [] });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '', rows: 0 });
    super.prepare(connection);
    // Only answers arrive from here on: the statement's own parse and bind have been written.
    awaitingBegin.add(this);
  }

  override handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (awaitingBegin.delete(this)) return;
    super.handleCommandComplete(message, connection);
  }
}
