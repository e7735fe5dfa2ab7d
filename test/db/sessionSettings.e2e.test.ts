import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { databaseProblem } from '../../src/db/databaseErrors.ts';
import { createTestDatabase, TEST_DIALECT, TEST_PG_POOLER, TEST_PG_URL, type TestDatabase } from '../support/testDatabase.ts';

type Settings = { zone: string; style: string; jit: string; timeout: string; schema: string };
const current = sql<Settings>`select current_setting('TimeZone') as zone, current_setting('DateStyle') as style, current_setting('jit') as jit,
  current_setting('statement_timeout') as timeout, current_schema() as schema`;

/**
 * Settings either travel as the connection's startup options (no pooler) or with each statement
 * and each transaction (behind one). Either way every statement has them; behind a pooler no server
 * connection keeps them for whoever gets it next.
 */
describe.runIf(TEST_DIALECT === 'postgres')(`the settings every statement runs under (PG_POOLER=${TEST_PG_POOLER})`, () => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.openAnother({ statementTimeoutMs: 700, poolMax: 3 });
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  const ours = (schema: string): Settings => ({ zone: 'UTC', style: 'ISO, MDY', jit: 'off', timeout: '700ms', schema });

  it('hold for a statement on its own, with values or without, and inside a transaction from BEGIN on', async () => {
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(database.db.kysely)).rows[0].s;
    expect((await current.execute(db.kysely)).rows[0]).toEqual(ours(schema));
    const withValue = await sql<Settings & { v: number }>`select current_setting('TimeZone') as zone, ${41}::int + 1 as v`.execute(db.kysely);
    expect(withValue.rows[0]).toEqual({ zone: 'UTC', v: 42 });
    const inside = await db.kysely
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const first = (await current.execute(trx)).rows[0];
        await sql`select 1`.execute(trx);
        return [
          first,
          (await current.execute(trx)).rows[0],
          (await sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(trx)).rows[0],
        ];
      });
    expect(inside).toEqual([ours(schema), ours(schema), { level: 'repeatable read' }]);
  });

  it('cut a statement off at the statement timeout (a 503), alone or in a transaction', async () => {
    const started = Date.now();
    const alone = await sql`select pg_sleep(5)`.execute(db.kysely).catch((error: unknown) => error);
    expect(databaseProblem(alone)?.status).toBe(503);
    const inTransaction = await db.kysely
      .transaction()
      .execute((trx) => sql`select pg_sleep(5)`.execute(trx))
      .catch((error: unknown) => error);
    expect(databaseProblem(inTransaction)?.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('are left on no server connection for the next client (behind a pooler: only in the transaction that needs them)', async () => {
    await Promise.all(Array.from({ length: 12 }, () => current.execute(db.kysely)));
    await db.kysely.transaction().execute((trx) => current.execute(trx));
    // A plain client through the same path, without our settings: it sees the server's defaults.
    for (let i = 0; i < 6; i++) {
      const plain = new pg.Client({ connectionString: TEST_PG_URL });
      await plain.connect();
      try {
        const { rows } = await plain.query<{ timeout: string; jit: string }>(
          `select current_setting('statement_timeout') as timeout, current_setting('jit') as jit`,
        );
        expect(rows[0]).toEqual({ timeout: '0', jit: 'on' });
      } finally {
        await plain.end();
      }
    }
  });
});
