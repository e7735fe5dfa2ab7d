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

const names = new Map<string, string>();

/** The name a marked statement is prepared under on every connection (the same text, the same name). */
export function preparedNameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `k${createHash('sha1').update(text).digest('hex').slice(0, 32)}`;
    if (names.size > 5000) names.clear();
    names.set(text, name);
  }
  return name;
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
        const sent =
          typeof text === 'string' && text.startsWith(PREPARED) ? client.query({ name: preparedNameOf(text), text, values }) : client.query(text, values);
        if (typeof (sent as Partial<Promise<unknown>>)?.catch !== 'function') return sent;
        return (sent as Promise<unknown>).catch((error: unknown) => {
          if (isDatabaseReadOnly(error)) kyselyClient.readOnlyError = error;
          throw error;
        });
      }) as unknown as PostgresPoolClient['query'],
      release: () => {
        const error = kyselyClient.readOnlyError;
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
