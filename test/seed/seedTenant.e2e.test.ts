import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/tenantQueries.ts';
import { caseFold } from '../../src/lists/request/caseFold.ts';
import type { Db } from '../../src/db/database.ts';
import { seedTenant } from '../../src/seed/seedTenant.ts';
import { card } from '../support/cards.ts';
import { cli, countsVersusRebuild, rowsOf, startSlowSeed, tenantId, totals, twoDatabases } from '../support/seedChecks.ts';
import { seed } from '../support/seedHelpers.ts';
import { appOn } from '../support/testApp.ts';
import type { TestDatabase } from '../support/testDatabase.ts';

const UNTIL = new Date('2026-11-01T00:00:00Z');

/** Waits until a run of the tenant has committed at least `payments` payments (and is not finished). */
async function untilCommitted(db: Db, tenant: string, payments: number) {
  for (let i = 0; i < 600; i++) {
    const run = await db.kysely
      .selectFrom('seed_runs')
      .innerJoin('tenants', 'tenants.id', 'seed_runs.tenant_id')
      .select(['payments_done', 'finished_at'])
      .where('tenants.name', '=', tenant)
      .executeTakeFirst();
    if (run && Number(run.payments_done) >= payments) {
      expect(run.finished_at).toBeNull();
      return;
    }
    await sleep(50);
  }
  throw new Error(`no ${payments} payments committed for ${tenant}`);
}

// Each case seeds thousands of rows, some through a child process paused between batches: with test
// files running side by side on two cores a case takes over the default 30 s (a hang guard, not a bound).
// The batched runs are half the rows they were (2026-11-27) in batches half as large: as many batches,
// pauses and commits before and after a kill or Ctrl-C, and the counts' check (a rebuild compared,
// ~1 ms a payment) costs half.
describe('seed in batches', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let reference: TestDatabase;
  beforeAll(async () => ({ database, reference } = await twoDatabases()));
  afterAll(() => Promise.all([database.drop(), reference.drop()]));

  it('keeps counts and bucket counts equal to a rebuild; a completed run adds nothing; another seed adds', async () => {
    const db = database.db;
    await seed(db, 'grow', 5, 300, 'first');
    const first = {
      accounts: await db.kysely.selectFrom('accounts').select('id').execute(),
      payments: await db.kysely.selectFrom('payments').select('id').execute(),
    };
    const options = {
      tenant: 'grow',
      accounts: 7,
      payments: 1250,
      seed: 'second',
      until: UNTIL,
      fingerprintSecret: 'test-secret',
      batchRows: 200,
      mode: 'batched' as const,
    };
    const progress: number[] = [];
    const result = await seedTenant(db, { ...options, onProgress: (p) => progress.push(p.accounts.done + p.payments.done) });
    expect(result).toMatchObject({ accounts: 7, payments: 1250, outcome: 'completed', before: { accounts: 0, payments: 0 } });
    // One report at the start, then one per batch: 7 accounts, then 1250 payments in batches of 200.
    expect(progress).toEqual([0, 7, ...[1, 2, 3, 4, 5, 6].map((i) => 7 + 200 * i), 1257]);
    expect(await totals(db, 'grow')).toEqual({ accounts: 12, payments: 1550 });
    const { kept, rebuilt } = await countsVersusRebuild(db, 'grow');
    expect(kept).toEqual(rebuilt);
    expect(kept.buckets.length).toBeGreaterThan(100);

    // Every column a write stores is there, derived ones included.
    for (const a of await db.kysely.selectFrom('accounts').selectAll().execute()) {
      expect([a.name_folded, a.email_folded]).toEqual([caseFold(a.name), caseFold(a.email)]);
    }
    // The run's payments also went to the accounts the tenant had before it.
    const intoOld = await db.kysely
      .selectFrom('payments')
      .select('id')
      .where(
        'account_id',
        'in',
        first.accounts.map((a) => a.id),
      )
      .where(
        'id',
        'not in',
        first.payments.map((p) => p.id),
      )
      .execute();
    expect(intoOld.length).toBeGreaterThan(100);

    const again = await seedTenant(db, options);
    expect(again).toMatchObject({ accounts: 0, payments: 0, outcome: 'already-completed', before: { accounts: 7, payments: 1250 } });
    expect(again.finishedAt).toBeTruthy();
    expect(await totals(db, 'grow')).toEqual({ accounts: 12, payments: 1550 });
    expect(await countsVersusRebuild(db, 'grow')).toEqual({ kept, rebuilt: kept });

    expect(await seedTenant(db, { ...options, seed: 'third' })).toMatchObject({ accounts: 7, payments: 1250, outcome: 'completed' });
    expect(await totals(db, 'grow')).toEqual({ accounts: 19, payments: 2800 });
    const after = await countsVersusRebuild(db, 'grow');
    expect(after.kept).toEqual(after.rebuilt);
    // What a finished run no longer needs is gone.
    expect(await db.kysely.selectFrom('seed_run_accounts').selectAll().execute()).toEqual([]);
  });

  it('a run killed midway and run again ends with the rows an uninterrupted run makes, and says so; then adds nothing', async () => {
    const args = ['--tenant', 'resume', '--accounts', '30', '--payments', '1500', '--seed', 'r', '--batched'];
    const slow = startSlowSeed(database, [...args, '--batch-size', '125'], 200);
    await untilCommitted(database.db, 'resume', 250);
    slow.child.kill('SIGKILL');
    expect(await slow.exited).toMatchObject({ signal: 'SIGKILL' });
    // Exact at every commit: what the killed run committed is counted, nothing else.
    const stopped = await totals(database.db, 'resume');
    expect(stopped.accounts).toBe(30);
    expect(stopped.payments).toBeGreaterThanOrEqual(250);
    expect(stopped.payments).toBeLessThan(1500);
    const midway = await countsVersusRebuild(database.db, 'resume');
    expect(midway.kept).toEqual(midway.rebuilt);

    const resumed = await cli(database, ...args);
    expect(resumed.stderr).toContain(`seeded 0 accounts and ${1500 - stopped.payments} payments into resume`);
    expect(resumed.stderr).toContain(`continuing an interrupted run that had added 30 accounts and ${stopped.payments} payments`);
    expect(await totals(database.db, 'resume')).toEqual({ accounts: 30, payments: 1500 });
    const resumedCounts = await countsVersusRebuild(database.db, 'resume');
    expect(resumedCounts.kept).toEqual(resumedCounts.rebuilt);

    await cli(reference, ...args);
    expect(await rowsOf(database.db, 'resume')).toEqual(await rowsOf(reference.db, 'resume'));
    expect(await countsVersusRebuild(reference.db, 'resume')).toEqual(resumedCounts);

    const repeated = await cli(database, ...args);
    expect(repeated.stderr).toMatch(/nothing to seed: this run .* completed at/);
    expect(await totals(database.db, 'resume')).toEqual({ accounts: 30, payments: 1500 });
  });

  it('Ctrl-C stops once the batches being written commit (exit 130); the same command continues', async () => {
    const args = ['--tenant', 'sigint', '--accounts', '10', '--payments', '1000', '--seed', 'i', '--batch-size', '100', '--batched'];
    const slow = startSlowSeed(database, args, 300);
    await untilCommitted(database.db, 'sigint', 100);
    slow.child.kill('SIGINT');
    const exit = await slow.exited;
    expect(exit.code).toBe(130);
    expect(exit.stderr).toMatch(/interrupted: seeded 10 accounts and \d+ payments into sigint .*run the same command again to continue/);
    const stopped = await totals(database.db, 'sigint');
    expect(exit.stderr).toContain(`and ${stopped.payments} payments into sigint`);
    expect(stopped.payments).toBeLessThan(1000);
    const { stderr } = await cli(database, ...args);
    expect(stderr).toContain(`seeded 0 accounts and ${1000 - stopped.payments} payments into sigint`);
    expect(await totals(database.db, 'sigint')).toEqual({ accounts: 10, payments: 1000 });
    const { kept, rebuilt } = await countsVersusRebuild(database.db, 'sigint');
    expect(kept).toEqual(rebuilt);
  });

  it('the same command run twice at once adds the run once', async () => {
    const args = ['--tenant', 'twice', '--accounts', '8', '--payments', '750', '--seed', 't', '--batch-size', '50', '--batched'];
    const [a, b] = [startSlowSeed(database, args, 10), startSlowSeed(database, args, 10)];
    const exits = [await a.exited, await b.exited];
    // Each one either ran the run, or found it taken over (a usage error), or already complete.
    for (const exit of exits) expect([0, 2], exit.stderr).toContain(exit.code);
    expect(exits.some((e) => e.code === 0 && /seeded \d+ accounts/.test(e.stderr))).toBe(true);
    for (const exit of exits.filter((e) => e.code === 2)) expect(exit.stderr).toContain('another process is running the same seed run');
    expect(await totals(database.db, 'twice')).toEqual({ accounts: 8, payments: 750 });
    const { kept, rebuilt } = await countsVersusRebuild(database.db, 'twice');
    expect(kept).toEqual(rebuilt);
    await cli(reference, ...args);
    expect(await rowsOf(database.db, 'twice')).toEqual(await rowsOf(reference.db, 'twice'));
  });

  it('keeps counts exact while the API writes to the same tenant', async () => {
    const app = await appOn(database);
    try {
      const db = database.db;
      await seed(db, 'busy-seed', 3, 10, 'start');
      const key = await createApiKey(db.kysely, await tenantId(db, 'busy-seed'), ['read', 'write']);
      const send = async (url: string, payload?: object): Promise<{ status: number; body: any }> => {
        const response = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });
        // SQLite has one writer: a write that meets the seed's is told to retry (503), as with WORKERS.
        if (response.statusCode === 503 && database.db.dialect === 'sqlite') {
          return send(url, payload);
        }
        return { status: response.statusCode, body: response.json() };
      };
      const account = (await send('/v3/accounts', { name: 'Busy', email: 'busy@example.com', currency: 'USD' })).body.data.id;
      const slow = startSlowSeed(
        database,
        ['--tenant', 'busy-seed', '--accounts', '5', '--payments', '1500', '--seed', 'b', '--batch-size', '100', '--batched'],
        20,
      );
      let running = true;
      void slow.exited.then(() => (running = false));
      let writes = 0;
      while (running) {
        const paid = await send('/v3/payments', { account_id: account, amount: 1000 + writes, currency: 'USD', capture: writes % 2 === 0, card: card() });
        expect(paid.status).toBe(201);
        const id = paid.body.data.id;
        expect((await send(`/v3/payments/${id}/${writes % 2 === 0 ? 'refunds' : 'capture'}`, writes % 2 === 0 ? { amount: 10 } : undefined)).status).toBe(200);
        writes += 1;
      }
      expect((await slow.exited).code).toBe(0);
      expect(writes).toBeGreaterThan(3);
      expect(await totals(db, 'busy-seed')).toEqual({ accounts: 3 + 1 + 5, payments: 10 + 1500 + writes });
      const { kept, rebuilt } = await countsVersusRebuild(db, 'busy-seed');
      expect(kept).toEqual(rebuilt);
    } finally {
      await app.close();
    }
  });
});
