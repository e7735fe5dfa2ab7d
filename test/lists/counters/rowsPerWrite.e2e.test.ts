import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLDED_ROWS_PER_CREATE } from '../../../src/lists/counters/writeBudget.ts';
import type { Database } from '../../../src/db/schema.ts';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { CARDS } from '../../support/cards.ts';
import { foldAll } from '../../support/foldAll.ts';
import { TEST_DIALECT } from '../../support/testDatabase.ts';

/**
 * The rows each write inserts, updates or deletes, per table, counted by triggers on every table:
 * the price every structure that speeds a read puts on the writes. A new slice, class, carried
 * column or index changes these numbers in the same commit (docs/decisions/0040-counts-as-a-real-time-aggregate.md).
 */
type Touched = Record<string, number>;

async function auditEveryTable(db: Kysely<Database>): Promise<void> {
  await sql`create table row_audit (tbl text not null, op text not null)`.execute(db);
  if (TEST_DIALECT === 'postgres') {
    await sql`create function audit_row() returns trigger language plpgsql as $$
      begin insert into row_audit values (tg_table_name, tg_op); return null; end $$`.execute(db);
    const { rows } = await sql<{ t: string }>`select tablename as t from pg_tables where schemaname = current_schema() and tablename <> 'row_audit'`.execute(
      db,
    );
    for (const { t } of rows)
      await sql`create trigger ${sql.id(`audit_${t}`)} after insert or update or delete on ${sql.table(t)} for each row execute function audit_row()`.execute(
        db,
      );
    return;
  }
  const { rows } = await sql<{
    t: string;
  }>`select name as t from sqlite_master where type = 'table' and name not like 'sqlite_%' and name <> 'row_audit'`.execute(db);
  for (const { t } of rows)
    for (const op of ['insert', 'update', 'delete'])
      await sql`create trigger ${sql.id(`audit_${t}_${op}`)} after ${sql.raw(op)} on ${sql.table(t)} begin insert into row_audit values (${sql.lit(t)}, ${sql.lit(op.toUpperCase())}); end`.execute(
        db,
      );
}

/** Rows touched per table since the last call (and clears the audit). */
async function touched(db: Kysely<Database>): Promise<Touched> {
  const { rows } = await sql<{ tbl: string; n: number }>`select tbl, count(*) as n from row_audit group by tbl order by tbl`.execute(db);
  await sql`delete from row_audit`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.tbl, Number(r.n)]));
}

const sum = (t: Touched) => Object.values(t).reduce((a, b) => a + b, 0);

describe('rows written per operation', () => {
  let t: TestContext;
  let key: string;
  let db: Kysely<Database>;
  let accountId: string;
  beforeAll(async () => {
    // No folder: each write is counted alone, then the fold on its own.
    t = await createTestApp({ countFold: false });
    db = t.database.db.kysely;
    ({ key } = await t.tenant('budget'));
    accountId = (await t.send('POST', '/v3/accounts', key, { name: 'A', email: 'a@example.com', currency: 'EUR' })).body.data.id;
    await foldAll(t.database.db);
    await auditEveryTable(db);
  });
  afterAll(() => t.close());

  let n = 0;
  const create = async (metadata: Record<string, string>, capture = true) => {
    const card = { number: CARDS.visa, exp_month: 12, exp_year: 2030, cvc: '123' };
    const body = { account_id: accountId, amount: 1234, currency: 'EUR', capture, card, metadata };
    const created = await t.send('POST', '/v3/payments', key, body, { 'idempotency-key': `budget-${n++}` });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  };
  const post = async (path: string, body?: unknown) => {
    const response = await t.send('POST', path, key, body, { 'idempotency-key': `budget-${n++}` });
    expect(response.status).toBe(200);
  };
  const base = { events: 2, idempotency_keys: 2, list_changes: 1, payments: 1 };

  it('a create writes its payment, its events, its idempotency key and one list change: 6 rows, and one per metadata key', async () => {
    await create({});
    expect(await touched(db)).toEqual(base);
    await create({ channel: 'web', plan: 'pro' });
    const withKeys = await touched(db);
    expect(withKeys).toEqual({ ...base, payment_metadata: 2 });
    expect(sum(withKeys)).toBe(8);
  });

  it('a capture, a cancel and a refund write 5 rows each, no metadata entry among them', async () => {
    const authorized = await create({ channel: 'web' }, false);
    const other = await create({ channel: 'web' }, false);
    await touched(db);
    const moved = { events: 1, idempotency_keys: 2, list_changes: 1, payments: 1 };
    await post(`/v3/payments/${authorized}/capture`);
    expect(await touched(db)).toEqual(moved);
    await post(`/v3/payments/${authorized}/refunds`, { amount: 100 });
    expect(await touched(db)).toEqual(moved);
    await post(`/v3/payments/${other}/cancel`);
    expect(await touched(db)).toEqual(moved);
  });

  it('an account create, PATCH and delete write their account, event and one list change', async () => {
    const created = await t.send('POST', '/v3/accounts', key, { name: 'B', email: 'b@example.com', currency: 'USD' }, { 'idempotency-key': `budget-${n++}` });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(await touched(db)).toEqual({ accounts: 1, events: 1, idempotency_keys: 2, list_changes: 1 });
    expect((await t.send('PATCH', `/v3/accounts/${id}`, key, { status: 'suspended' })).status).toBe(200);
    expect(await touched(db)).toEqual({ accounts: 1, events: 1, list_changes: 1 });
    expect((await t.send('DELETE', `/v3/accounts/${id}`, key)).status).toBe(204);
    expect(await touched(db)).toEqual({ accounts: 1, events: 1, list_changes: 1 });
  });

  it('folds many alike creates into about as many counter rows as one', async () => {
    await foldAll(t.database.db);
    await touched(db);
    await create({ channel: 'web' });
    await touched(db);
    await foldAll(t.database.db);
    const one = await touched(db);
    // What counters/writeBudget.ts says a create costs once folded, table by table (a row inserted or updated alike).
    expect({ list_counts: one.list_counts, list_buckets: one.list_buckets, metadata_value_counts: one.metadata_value_counts }).toEqual(FOLDED_ROWS_PER_CREATE);
    for (let i = 0; i < 50; i++) await create({ channel: 'web' });
    await touched(db);
    await foldAll(t.database.db);
    const fifty = await touched(db);
    expect(fifty.list_changes).toBe(50);
    const counters = (x: Touched) => (x.list_counts ?? 0) + (x.list_buckets ?? 0) + (x.metadata_value_counts ?? 0);
    expect(counters(fifty)).toBeLessThanOrEqual(2 * counters(one));
  });

  it('keeps payments at 13 secondary indexes', async () => {
    const { rows } =
      TEST_DIALECT === 'postgres'
        ? await sql<{
            n: number;
          }>`select count(*) as n from pg_indexes where schemaname = current_schema() and tablename = 'payments' and indexname <> 'payments_pkey'`.execute(db)
        : await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'index' and tbl_name = 'payments' and sql is not null`.execute(db);
    expect(Number(rows[0].n)).toBe(13);
  });
});
