import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { seedTenant, type SeedOptions } from '../../src/seed/seedTenant.ts';
import { cli, countsVersusRebuild, rowsOf, startSlowSeed, totals, twoDatabases } from '../support/seedChecks.ts';
import { seed } from '../support/seedHelpers.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

/** payments' indexes as the catalog has them (names and definitions). */
async function paymentIndexes(db: Db): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await sql<{ name: string; def: string | null }>`select name, sql as def from sqlite_master where type = 'index' and tbl_name = 'payments'`.execute(
          db.kysely,
        )
      : await sql<{
          name: string;
          def: string;
        }>`select indexname as name, indexdef as def from pg_indexes where tablename = 'payments' and schemaname = current_schema()`.execute(db.kysely);
  return rows.rows.map((r) => `${r.name}: ${r.def}`).sort();
}

/** Everything a load may change, to compare before and after one that was undone. */
async function stateOf(db: Db, tenant: string) {
  const runs = await db.kysely
    .selectFrom('seed_runs')
    .innerJoin('tenants', 'tenants.id', 'seed_runs.tenant_id')
    .select(['seed', 'accounts_done', 'payments_done', 'finished_at'])
    .where('tenants.name', '=', tenant)
    .orderBy('seed')
    .execute();
  return {
    totals: await totals(db, tenant),
    counts: (await countsVersusRebuild(db, tenant)).kept,
    runs: runs.map((r) => ({ ...r, accounts_done: Number(r.accounts_done), payments_done: Number(r.payments_done) })),
    indexes: await paymentIndexes(db),
  };
}

/** Waits until the run `seed` of `tenant` is loading in one transaction (it holds payments' lock; on SQLite, its run is recorded and a moment has passed). */
async function untilLoading(db: Db, tenant: string, seed: string) {
  for (let i = 0; i < 600; i++) {
    const run = await db.kysely
      .selectFrom('seed_runs')
      .innerJoin('tenants', 'tenants.id', 'seed_runs.tenant_id')
      .select('seed_runs.id')
      .where('tenants.name', '=', tenant)
      .where('seed_runs.seed', '=', seed)
      .executeTakeFirst();
    if (run && db.dialect === 'sqlite') {
      // Its first chunk and a pause of 500 ms: the kill lands with the indexes dropped and rows in.
      await sleep(700);
      return;
    }
    if (run) {
      const locked = await sql<{ n: number }>`select count(*)::int as n from pg_locks
        where relation = 'payments'::regclass and mode = 'AccessExclusiveLock' and granted and pid <> pg_backend_pid()`.execute(db.kysely);
      if (locked.rows[0].n > 0) return;
    }
    await sleep(50);
  }
  throw new Error(`no load of ${tenant} started`);
}

/** A run's options as these tests give them (the same time and card secret throughout). */
function runOptions(tenant: string, seed: string, accounts: number, payments: number, batchRows: number): SeedOptions {
  return { tenant, seed, accounts, payments, batchRows, until: new Date('2026-11-01T00:00:00Z'), fingerprintSecret: 'test-secret' };
}

// The loads are half the rows they were (2026-11-27) in batches half as large: as many batches and
// pauses before a kill or a stop, every load still larger than what payments held before it (so one
// transaction), and the counts' check (a rebuild compared, ~1 ms a payment) costs half.
describe('seed in one transaction', () => {
  let database: TestDatabase;
  let reference: TestDatabase;
  beforeAll(async () => ({ database, reference } = await twoDatabases()));
  afterAll(() => Promise.all([database.drop(), reference.drop()]));

  it('loading a table that holds fewer rows: readers see the load whole or not at all; counts exact; the rows batches make; indexes as before', async () => {
    const db = database.db;
    await seed(db, 'load', 3, 50, 'start');
    await seed(reference.db, 'load', 3, 50, 'start');
    const indexes = await paymentIndexes(db);
    expect(indexes.length).toBeGreaterThan(5);
    const args = ['--tenant', 'load', '--accounts', '20', '--payments', '1500', '--seed', 'o', '--batch-size', '150'];
    const slow = startSlowSeed(database, args, 150);
    let running = true;
    void slow.exited.then(() => (running = false));
    const seen = new Set<number>();
    while (running) {
      // PostgreSQL: the count waits for the load's lock; the maintained total does not.
      const total = await sql<{ n: number | string }>`select coalesce(sum(n), 0) as n from list_counts
        where list = 'payments' and account_id = '' and status = '' and currency = '' and card_brand = ''`.execute(db.kysely);
      seen.add(Number(total.rows[0].n));
      seen.add((await totals(db, 'load')).payments);
      await sleep(20);
    }
    expect((await slow.exited).code).toBe(0);
    expect([...seen].filter((n) => n !== 50 && n !== 1550)).toEqual([]);
    expect(await totals(db, 'load')).toEqual({ accounts: 23, payments: 1550 });
    const { kept, rebuilt } = await countsVersusRebuild(db, 'load');
    expect(kept).toEqual(rebuilt);
    expect(kept.buckets.length).toBeGreaterThan(100);
    // Payments' `channel` values and business accounts' `segment`: the load's tallied value counts, compared above.
    expect(kept.values.length).toBeGreaterThan(3);
    expect(await paymentIndexes(db)).toEqual(indexes);

    await cli(reference, ...args, '--batched');
    expect(await rowsOf(db, 'load')).toEqual(await rowsOf(reference.db, 'load'));
    expect(await countsVersusRebuild(reference.db, 'load')).toEqual({ kept, rebuilt: kept });
  }, 300_000);

  it('many accounts: what one account’s slices tally is written out as it piles up (bounded), counts exact and the same as batches make, new tenant or not', async () => {
    const db = database.db;
    // One tenant with bucket rows already (its rows upserted), one new (the tenant's own written as new).
    await seed(db, 'wide', 3, 40, 'start');
    await seed(reference.db, 'wide', 3, 40, 'start');
    for (const tenant of ['wide', 'widenew']) {
      const options = { ...runOptions(tenant, 'w', 200, 1200, 200), accountTallyEntries: 150 };
      const writtenOut: number[] = [];
      expect(await seedTenant(db, { ...options, mode: 'one-transaction', onWrittenOut: (n) => writtenOut.push(n) })).toMatchObject({ outcome: 'completed' });
      // After most chunks of 200 payments over 200 accounts (~2.5 entries a payment; under 150 before a chunk, at most 3 a payment in it).
      expect(writtenOut.length).toBeGreaterThan(3);
      expect(Math.max(...writtenOut)).toBeLessThan(150 + 3 * 200);
      const { kept, rebuilt } = await countsVersusRebuild(db, tenant);
      expect(kept).toEqual(rebuilt);
      expect(kept.buckets.length).toBeGreaterThan(500);
      await seedTenant(reference.db, { ...options, mode: 'batched' });
      expect(await countsVersusRebuild(reference.db, tenant)).toEqual({ kept, rebuilt: kept });
    }
  }, 300_000);

  it('a tenant with no rows yet (its bucket rows written as new): counts exact, the same as batches make, and other tenants’ as they were', async () => {
    const db = database.db;
    await seed(db, 'other', 3, 60, 'start');
    const other = await countsVersusRebuild(db, 'other');
    const options = runOptions('new', 'n', 8, 1250, 200);
    expect(await seedTenant(db, { ...options, mode: 'one-transaction' })).toMatchObject({ outcome: 'completed', phases: expect.any(Object) });
    const { kept, rebuilt } = await countsVersusRebuild(db, 'new');
    expect(kept).toEqual(rebuilt);
    expect(kept.buckets.length).toBeGreaterThan(100);
    expect(await countsVersusRebuild(db, 'other')).toEqual(other);

    await seedTenant(reference.db, { ...options, mode: 'batched' });
    expect(await countsVersusRebuild(reference.db, 'new')).toEqual({ kept, rebuilt: kept });
  }, 300_000);

  it('an error or the stop signal mid-load leaves the database as it was, indexes included; the run then loads whole', async () => {
    const db = database.db;
    await seed(db, 'undo', 4, 40, 'start');
    const before = await stateOf(db, 'undo');
    const options: SeedOptions = { ...runOptions('undo', 'u', 6, 1000, 125), mode: 'one-transaction' };
    const midway = (act: () => void) => (p: { payments: { done: number } }) => {
      if (p.payments.done >= 250) act();
    };
    await expect(
      seedTenant(db, {
        ...options,
        onProgress: midway(() => {
          throw new Error('mid-load failure');
        }),
      }),
    ).rejects.toThrow('mid-load failure');
    expect(await stateOf(db, 'undo')).toEqual({ ...before, runs: [...before.runs, { seed: 'u', accounts_done: 0, payments_done: 0, finished_at: null }] });

    const stop = new AbortController();
    const stopped = await seedTenant(db, { ...options, signal: stop.signal, onProgress: midway(() => stop.abort()) });
    expect(stopped).toMatchObject({ accounts: 0, payments: 0, outcome: 'interrupted' });
    expect((await stateOf(db, 'undo')).totals).toEqual(before.totals);
    expect((await stateOf(db, 'undo')).counts).toEqual(before.counts);
    expect(await paymentIndexes(db)).toEqual(before.indexes);

    // Stopped past the rows: as the index builds begin, or after the counts are added (before the commit).
    for (const phase of ['indexes', 'commit'] as const) {
      const late = new AbortController();
      const onPhase = (p: string) => (p === phase ? late.abort() : undefined);
      expect(await seedTenant(db, { ...options, signal: late.signal, onPhase })).toMatchObject({ payments: 0, outcome: 'interrupted' });
      expect((await stateOf(db, 'undo')).totals).toEqual(before.totals);
      expect((await stateOf(db, 'undo')).counts).toEqual(before.counts);
      expect(await paymentIndexes(db)).toEqual(before.indexes);
    }

    expect(await seedTenant(db, options)).toMatchObject({ accounts: 6, payments: 1000, outcome: 'completed' });
    expect(await totals(db, 'undo')).toEqual({ accounts: 10, payments: 1040 });
    const { kept, rebuilt } = await countsVersusRebuild(db, 'undo');
    expect(kept).toEqual(rebuilt);
    expect(await paymentIndexes(db)).toEqual(before.indexes);
  }, 300_000);

  it('a load killed midway leaves the database as it was, indexes included; the same command then loads it whole', async () => {
    // A database of its own: the load must be larger than what payments holds, to be one transaction.
    const fresh = await createTestDatabase();
    try {
      const db = fresh.db;
      await seed(db, 'killed', 2, 30, 'start');
      const before = await stateOf(db, 'killed');
      const args = ['--tenant', 'killed', '--accounts', '5', '--payments', '2000', '--seed', 'k', '--batch-size', '100'];
      const slow = startSlowSeed(fresh, args, 500);
      await untilLoading(db, 'killed', 'k');
      slow.child.kill('SIGKILL');
      expect(await slow.exited).toMatchObject({ signal: 'SIGKILL' });
      expect(await stateOf(db, 'killed')).toEqual({
        ...before,
        runs: [{ seed: 'k', accounts_done: 0, payments_done: 0, finished_at: null }, ...before.runs],
      });

      const { stderr } = await cli(fresh, ...args);
      expect(stderr).toContain('seeded 5 accounts and 2000 payments into killed');
      expect(await totals(db, 'killed')).toEqual({ accounts: 7, payments: 2030 });
      const { kept, rebuilt } = await countsVersusRebuild(db, 'killed');
      expect(kept).toEqual(rebuilt);
      expect(await paymentIndexes(db)).toEqual(before.indexes);
    } finally {
      await fresh.drop();
    }
  }, 300_000);
});
