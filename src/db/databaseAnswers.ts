import type pg from 'pg';
import { DatabaseNotAnswering } from './databaseErrors.ts';
import { giveUpConnection } from './statementDeadline.ts';

/** pg-pool as it is inside: the client class and options it makes its connections with. */
interface PoolInside {
  Client: typeof pg.Client;
  options: pg.PoolConfig;
}

/**
 * Whether the database answers `select 1` on a connection made for the question, the way the
 * pool makes them (host choice, pooler settings, timeouts), within `timeoutMs`: asked when a
 * statement or a COPY allowed to run long has sent nothing for a while. Not a pooled connection:
 * a busy pool is no sign of a database gone, and its idle connections may be the dead ones.
 */
export async function answersOnNewConnection(pool: pg.Pool, timeoutMs: number): Promise<boolean> {
  const { Client, options } = pool as unknown as PoolInside;
  const client = new Client(options);
  client.on('error', () => {});
  const timer = setTimeout(() => giveUpConnection(client, new DatabaseNotAnswering(timeoutMs)), timeoutMs);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => {});
  }
}
