import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn, createTestApp, type TestContext } from '../../support/testApp.ts';
import { TEST_DIALECT } from '../../support/testDatabase.ts';
import { CARDS } from '../../support/cards.ts';
import { foldAll } from '../../support/foldAll.ts';
import { measureFoldLag } from '../../../src/lists/counters/foldChanges.ts';

/** The folder of list changes: off the request path, each change once, its lag on /metrics. */
describe('folding list changes into the counts', () => {
  let t: TestContext;
  let key: string;
  let accountId: string;
  let tenantId: string;
  beforeAll(async () => {
    t = await createTestApp({ countFold: false });
    ({ key, id: tenantId } = await t.tenant('folder'));
    accountId = (await t.send('POST', '/v3/accounts', key, { name: 'A', email: 'a@example.com', currency: 'EUR' })).body.data.id;
  });
  afterAll(() => t.close());

  const create = (app = t.app, i = 0) =>
    app.inject({
      method: 'POST',
      url: '/v3/payments',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        account_id: accountId,
        amount: 100 + i,
        currency: 'EUR',
        card: { number: CARDS.visa, exp_month: 12, exp_year: 2030, cvc: '123' },
        metadata: { channel: 'web' },
      },
    });
  const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await t.app.inject({ url: '/metrics' })).body)?.[1]);

  it('shows on /metrics how many changes wait and how old the oldest is, and none once folded', async () => {
    for (let i = 0; i < 3; i++) expect((await create()).statusCode).toBe(201);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await metric('count_fold_lag_changes')).toBeGreaterThanOrEqual(3);
    expect(await metric('count_fold_lag_seconds')).toBeGreaterThan(1);
    await foldAll(t.database.db);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await metric('count_fold_lag_changes')).toBe(0);
    expect(await metric('count_fold_lag_seconds')).toBe(0);
  });

  it('folds each change exactly once while two instances fold the same tenant and writes go on', async () => {
    const a = await appOn(t.database, { countFold: { intervalMs: 5, batch: 7 } });
    const b = await appOn(t.database, { countFold: { intervalMs: 5, batch: 7 } });
    try {
      const writes = Array.from({ length: 60 }, (_, i) => create(i % 2 ? a : b, i));
      for (const w of await Promise.all(writes)) expect(w.statusCode).toBe(201);
      for (let i = 0; i < 200 && (await measureFoldLag(t.database.db)).changes > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect((await measureFoldLag(t.database.db)).changes).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
    const db = t.database.db.kysely;
    const kept = await sql<{
      n: number;
    }>`select sum(n) as n from list_counts where list = 'payments' and account_id = '' and status = '' and currency = '' and card_brand = ''`.execute(db);
    const rows = await sql<{ n: number }>`select count(*) as n from payments`.execute(db);
    expect(Number(kept.rows[0].n)).toBe(Number(rows.rows[0].n));
    const values = await sql<{
      n: number;
    }>`select sum(n) as n from metadata_value_counts where list = 'payments' and key = 'channel' and value = 'web'`.execute(db);
    expect(Number(values.rows[0].n)).toBe(Number(rows.rows[0].n));
    const buckets = await sql<{
      n: number;
    }>`select sum(n) as n from list_buckets where sort_key = 'amount' and level = 0 and account_id = '' and status = '' and currency = '' and card_brand = ''`.execute(
      db,
    );
    expect(Number(buckets.rows[0].n)).toBe(Number(rows.rows[0].n));
  });

  /** The pages a read of the tenant's unfolded changes touches (PostgreSQL's own count, EXPLAIN's buffers). */
  const tailPages = async () => {
    const { rows } = await sql<{
      'QUERY PLAN': Array<{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }>;
    }>`explain (analyze, buffers, format json) select count(*) from list_changes where tenant_id = ${tenantId}`.execute(t.database.db.kysely);
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
  };

  it.runIf(TEST_DIALECT === 'postgres')('keeps the changes it folded from slowing the reads that add the rest (PostgreSQL: vacuumed)', async () => {
    const folding = await appOn(t.database, { countFold: { intervalMs: 5, vacuumMs: 0 } });
    try {
      // A long read holds a snapshot meanwhile, as reads under load do: the folded changes stay in
      // the index, each page of them read by every later count until a vacuum takes them out.
      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      const reading = t.database.db.kysely.connection().execute(async (c) => {
        await sql`begin isolation level repeatable read`.execute(c);
        await sql`select count(*) from payments`.execute(c);
        await held;
        await sql`commit`.execute(c);
      });
      for (let i = 0; i < 1000; i += 25) {
        const writes = await Promise.all(Array.from({ length: 25 }, (_, j) => create(folding, i + j)));
        for (const w of writes) expect(w.statusCode).toBe(201);
      }
      release();
      await reading;
      let pages = Number.POSITIVE_INFINITY;
      // Other tests' transactions on the server may hold back what a vacuum can remove for a while.
      for (let i = 0; i < 400 && ((await measureFoldLag(t.database.db)).changes > 0 || (pages = await tailPages()) > 3); i++) {
        if (i % 10 === 9) await create(folding, i);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Unvacuumed: 1,000 changes' entries, 10 pages read by every count.
      expect(pages).toBeLessThanOrEqual(3);
    } finally {
      await folding.close();
    }
  });
});
