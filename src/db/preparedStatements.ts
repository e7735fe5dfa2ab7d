import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { isDatabaseReadOnly } from './databaseErrors.ts';

/**
 * Put this first in a statement's SQL to have PostgreSQL parse and plan it once per connection
 * (a named prepared statement) instead of on every call. For the list statements, whose
 * planning (CTEs, a lateral join) costs more than running them: measured at 1M payments, a deep
 * page spent ~2 ms planning and ~1 ms executing.
 */
export const PREPARED = '/* prepared */ ';

/** Texts whose names are remembered; past this many the memory starts afresh (a name then costs a hash again). */
const MAX_NAMES = 5000;
/**
 * Statements one connection keeps prepared, at most. Each is a plan in that server process's
 * memory and its text in the driver's, for as long as the connection lives, and a busy pool's
 * connections live for good: past this many, a new text runs unnamed and the connection is
 * closed when released (the pool opens a fresh one).
 */
export const MAX_PREPARED_PER_CONNECTION = 200;

/** By text: its name, and the first copy of the text, which every connection keeps instead of its own. */
const names = new Map<string, { name: string; text: string }>();
const preparedOn = new WeakMap<object, Set<string>>();

/** The name a marked statement is prepared under on every connection (the same text, the same name). */
function namedText(text: string): { name: string; text: string } {
  let named = names.get(text);
  if (!named) {
    named = { name: `k${createHash('sha1').update(text).digest('hex').slice(0, 32)}`, text };
    if (names.size >= MAX_NAMES) names.clear();
    names.set(text, named);
  }
  return named;
}

/**
 * How to send a marked statement on `client`: by name (with the one shared copy of its text),
 * or unnamed once the connection has prepared its MAX_PREPARED_PER_CONNECTION.
 */
export function preparedQueryOn(client: object, text: string, values: unknown[] | undefined): { name?: string; text: string; values?: unknown[] } {
  const named = namedText(text);
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  if (!prepared.has(named.name)) {
    if (prepared.size >= MAX_PREPARED_PER_CONNECTION) return { text, values };
    prepared.add(named.name);
  }
  return { name: named.name, text: named.text, values };
}

/** Whether `client` has prepared all it may: it is closed on release rather than kept. */
export function preparedFull(client: object): boolean {
  return (preparedOn.get(client)?.size ?? 0) >= MAX_PREPARED_PER_CONNECTION;
}

/**
 * The pool as Kysely sees it: marked statements go by name, everything else as it was. A client
 * whose statement was refused as read-only (25006: its server is a standby now, or was demoted in
 * a failover) is released with that error, so the pool closes it and the next connection finds
 * the host that takes writes (writableHostClient.ts), or reconnects to a name that moved.
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient & { readOnlyError?: unknown }>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient & { readOnlyError?: unknown } => {
    const kyselyClient: PostgresPoolClient & { readOnlyError?: unknown } = {
      // biome-ignore lint/suspicious/noExplicitAny: any database, table and row: this only adds clauses or wraps a driver call
      query: ((text: any, values?: unknown[]) => {
        const sent = typeof text === 'string' && text.startsWith(PREPARED) ? client.query(preparedQueryOn(client, text, values)) : client.query(text, values);
        if (typeof (sent as Partial<Promise<unknown>>)?.catch !== 'function') return sent;
        return (sent as Promise<unknown>).catch((error: unknown) => {
          if (isDatabaseReadOnly(error)) kyselyClient.readOnlyError = error;
          throw error;
        });
      }) as unknown as PostgresPoolClient['query'],
      release: () => {
        const error = kyselyClient.readOnlyError ?? (preparedFull(client) ? new Error('prepared statements at their limit') : undefined);
        kyselyClient.readOnlyError = undefined;
        client.release(error as Error | undefined);
      },
    };
    return kyselyClient;
  };
  return {
    async connect() {
      const client = await pool.connect();
      let kyselyClient = wrapped.get(client);
      if (!kyselyClient) wrapped.set(client, (kyselyClient = wrap(client)));
      return kyselyClient;
    },
    end: () => pool.end(),
  };
}
