import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchListPage } from '../../src/lists/runListPage.ts';
import { parseListQuery } from '../../src/lists/request/parseListQuery.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { flagged } from '../../src/db/driverFlags.ts';
import { MAX_PREPARED_PER_CONNECTION } from '../../src/db/preparedStatements.ts';
import { recordSentStatements } from '../support/sentStatements.ts';
import { seed } from '../support/seedHelpers.ts';
import { createTestDatabase, TEST_DIALECT, TEST_PG_POOLER, type TestDatabase } from '../support/testDatabase.ts';

describe('list statements on PostgreSQL', () => {
  let database: TestDatabase;
  let single: Db;
  let tenantId: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    tenantId = (await seed(database.db, 'prepared', 2, 50)).tenantId;
    single = database.openAnother({ poolMax: 1 }); // one connection: what it has prepared is visible
  });
  afterAll(async () => {
    await single.close();
    await database.drop();
  });

  // Behind a transaction pooler the suite's connections are the pooler's: nothing is prepared by name.
  const direct = TEST_DIALECT === 'postgres' && TEST_PG_POOLER !== 'transaction';

  it.runIf(direct)('are prepared once per connection and then run by name, with one generic plan', async () => {
    const query = parseListQuery(paymentListSpec, { sort: '-amount' });
    const ctx = { db: single, tuning: { plainOffsetUpTo: 10, skipHop: 3 } };
    const pages = [];
    const recorder = recordSentStatements();
    try {
      for (let i = 0; i < 3; i++) {
        pages.push(await fetchListPage(ctx, 'payments', { tenantId }, query, { page: 1, perPage: 5, offset: 0 }));
        pages.push(await fetchListPage(ctx, 'payments', { tenantId }, query, { page: 4, perPage: 5, offset: 15 }));
      }
    } finally {
      recorder.stop();
    }
    expect(pages.map((p) => p.strategy)).toEqual(['offset', 'buckets', 'offset', 'buckets', 'offset', 'buckets']);
    // The flag travels beside the text (db/driverFlags.ts): nothing sent begins with a comment.
    expect(recorder.statements.length).toBeGreaterThanOrEqual(6);
    expect(recorder.statements.filter((s) => s.text.trimStart().startsWith('/*'))).toEqual([]);
    // The connection's only named statements are the two pages'.
    const { rows } = await sql<{ n: number; generic: number; mode: string }>`
      select count(*)::int as n, coalesce(sum(generic_plans), 0)::int as generic, current_setting('plan_cache_mode') as mode
      from pg_prepared_statements`.execute(single.kysely);
    expect(rows[0]).toEqual({ n: 2, generic: 6, mode: 'force_generic_plan' });
  });

  it.runIf(direct)('are kept prepared on one connection up to a limit, past which it is replaced by a fresh one', async () => {
    const one = database.openAnother({ poolMax: 1 });
    try {
      const seen = [];
      for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 100; i++) {
        // A text of its own each time: a shape never seen before, as a long-lived connection meets them.
        const statement = sql<{ i: number; pid: number; prepared: number }>`select ${sql.lit(i)}::int as i, pg_backend_pid() as pid,
          (select count(*)::int from pg_prepared_statements) as prepared`;
        const { rows } = await one.kysely.executeQuery(flagged(statement, { prepared: true }).compile(one.kysely));
        seen.push(rows[0]);
      }
      expect(seen.map((r) => r.i)).toEqual([...Array(MAX_PREPARED_PER_CONNECTION + 100).keys()]);
      expect(Math.max(...seen.map((r) => r.prepared))).toBe(MAX_PREPARED_PER_CONNECTION);
      expect(new Set(seen.map((r) => r.pid)).size).toBe(2);
    } finally {
      await one.close();
    }
  });

  it.runIf(TEST_DIALECT === 'postgres')('are never prepared by name with PG_POOLER=transaction: any server connection may run the next one', async () => {
    const unnamed = database.openAnother({ poolMax: 1, pooler: 'transaction' });
    try {
      const query = parseListQuery(paymentListSpec, { sort: '-amount' });
      const ctx = { db: unnamed, tuning: { plainOffsetUpTo: 10, skipHop: 3 } };
      const direct = { db: single, tuning: ctx.tuning };
      for (let i = 0; i < 2; i++) {
        for (const at of [
          { page: 1, perPage: 5, offset: 0 },
          { page: 4, perPage: 5, offset: 15 },
        ]) {
          const page = await fetchListPage(ctx, 'payments', { tenantId }, query, at);
          expect(page).toEqual(await fetchListPage(direct, 'payments', { tenantId }, query, at));
        }
      }
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(unnamed.kysely);
      expect(rows[0].n).toBe(0);
    } finally {
      await unnamed.close();
    }
  });

  it.runIf(TEST_DIALECT === 'postgres')('keep their session settings when DATABASE_URL brings options of its own (a search_path)', async () => {
    const fromUrl = openDatabase(database.url, { pooler: TEST_PG_POOLER }); // …?options=-c search_path=<the test schema>
    try {
      const { rows } = await sql<{ zone: string; mode: string; payments: number }>`
        select current_setting('TimeZone') as zone, current_setting('plan_cache_mode') as mode, (select count(*)::int from payments) as payments`.execute(
        fromUrl.kysely,
      );
      expect(rows[0]).toEqual({ zone: 'UTC', mode: TEST_PG_POOLER === 'transaction' ? 'auto' : 'force_generic_plan', payments: 50 });
    } finally {
      await fromUrl.close();
    }
  });
});
