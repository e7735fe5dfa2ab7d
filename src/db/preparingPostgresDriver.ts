import { PostgresDriver, type CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import type pg from 'pg';
import { isDatabaseReadOnly } from './databaseErrors.ts';
import { driverFlagsOf } from './driverFlags.ts';
import { SENT_ALONE } from './poolerSafeClient.ts';
import { preparedFull, preparedQueryOn } from './preparedStatements.ts';
import { PLAIN_BEGIN, StatementAfterBegin } from './statementAfterBegin.ts';

/** Commands whose rows Kysely reports as affected, as its own PostgreSQL connection does. */
const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** The error with its caller's stack after its own, as Kysely's connection gives it: node-postgres' says nothing of who asked. */
function withCallerStack(error: unknown, caller: Error): unknown {
  if (error instanceof Error && typeof error.stack === 'string' && caller.stack) error.stack += `\n${caller.stack.split('\n').slice(1).join('\n')}`;
  return error;
}

/**
 * One checkout of a pooled client as Kysely's connection, the last place that sees the compiled
 * query and so its flags (node-postgres takes text and values): one flagged `prepared` goes by its
 * name. A client refused as read-only (25006: a standby now, demoted in a failover) is released
 * with that error, so the pool closes it and the next finds the host that takes writes. A plain
 * BEGIN waits to go with the transaction's first statement (statementAfterBegin.ts, decision 0096).
 */
class PreparingConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  #readOnlyError: unknown;
  /** Kysely began a transaction and nothing of it was sent yet. */
  #beginPending = false;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const values = [...compiled.parameters];
    const afterBegin = this.#beginPending;
    this.#beginPending = false;
    if (compiled.sql === PLAIN_BEGIN && values.length === 0) {
      this.#beginPending = true;
      return { rows: [] };
    }
    // A transaction that sent nothing has nothing to end.
    if (afterBegin && (compiled.sql === 'commit' || compiled.sql === 'rollback')) return { rows: [] };
    try {
      const flags = driverFlagsOf(compiled);
      const config = flags.prepared
        ? preparedQueryOn(this.#client, compiled.sql, values)
        : { text: compiled.sql, values, ...(flags.alone ? { [SENT_ALONE]: true } : {}) };
      const sent = afterBegin ? this.#withBegin(config) : this.#client.query(config);
      const { command, rowCount, rows } = await sent;
      return { numAffectedRows: AFFECTING.has(command) ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
    } catch (error) {
      if (isDatabaseReadOnly(error)) this.#readOnlyError = error;
      throw withCallerStack(error, new Error());
    }
  }

  #withBegin(config: { name?: string; text: string; values?: unknown[] }): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      const statement = new StatementAfterBegin(config);
      statement.callback = (error, result) => (error ? reject(error) : resolve(result as pg.QueryResult));
      this.#client.query(statement as unknown as pg.Submittable);
    });
  }

  // biome-ignore lint/correctness/useYield: nothing streams through Kysely on PostgreSQL (streamRowTexts.ts reads rows as they come)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('no streaming through Kysely on PostgreSQL: use streamRowTexts');
  }

  /** Back to the pool; closed instead when its statement was refused as read-only or it has prepared all it may. */
  release(): void {
    const error = this.#readOnlyError ?? (preparedFull(this.#client) ? new Error('prepared statements at their limit') : undefined);
    this.#client.release(error as Error | undefined);
  }
}

/** Kysely's PostgreSQL driver (transactions, savepoints, the pool's end), its connections ours. */
export class PreparingPostgresDriver extends PostgresDriver {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    super({ pool });
    this.#pool = pool;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new PreparingConnection(await this.#pool.connect());
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PreparingConnection).release();
  }
}
