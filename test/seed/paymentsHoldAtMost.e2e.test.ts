import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentsHoldAtMost } from '../../src/seed/paymentsHoldAtMost.ts';
import { seedTenant } from '../../src/seed/seedTenant.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

describe(`how many rows payments holds, as the seed's choice of load asks it (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('an empty table holds at most none; a filled one is judged by a count (SQLite) or, once analyzed, by the catalog’s estimate (PostgreSQL)', async () => {
    expect(await paymentsHoldAtMost(database.db, 0)).toBe(true);
    // In batches: a load in one transaction builds payments' indexes, which leaves the catalog its statistics.
    if (TEST_DIALECT === 'postgres') await sql`alter table payments set (autovacuum_enabled = false)`.execute(database.db.kysely);
    const until = new Date('2026-11-01T00:00:00Z');
    await seedTenant(database.db, { tenant: 'held', accounts: 3, payments: 400, seed: 'h', until, fingerprintSecret: 'x', mode: 'batched' });
    if (TEST_DIALECT === 'sqlite') {
      expect(await paymentsHoldAtMost(database.db, 400)).toBe(true);
      expect(await paymentsHoldAtMost(database.db, 399)).toBe(false);
      return;
    }
    // Never analyzed: taken as too large, whatever the limit (the load then goes in batches).
    expect(await paymentsHoldAtMost(database.db, 1_000_000)).toBe(false);
    await sql`analyze payments`.execute(database.db.kysely);
    expect(await paymentsHoldAtMost(database.db, 800)).toBe(true);
    expect(await paymentsHoldAtMost(database.db, 200)).toBe(false);
  });
});
