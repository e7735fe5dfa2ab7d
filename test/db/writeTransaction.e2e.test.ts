import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTER_SHARDS } from '../../src/db/counterShard.ts';
import { inWriteTransaction } from '../../src/db/writeTransaction.ts';
import { validationProblem } from '../../src/core/problem.ts';
import { runIdempotent } from '../../src/idempotency/runIdempotent.ts';
import { seed } from '../support/seedHelpers.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

describe('a write transaction', () => {
  let database: TestDatabase;
  let accountId: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'locks', 1, 0);
    accountId = (await database.db.kysely.selectFrom('accounts').select('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(() => database.drop());

  const lockAccount = (trx: Parameters<Parameters<typeof inWriteTransaction>[1]>[0]['trx']) =>
    trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate();

  it('locks the rows it reads with forUpdate() on PostgreSQL, and leaves the clause out on SQLite', async () => {
    const compiled = await inWriteTransaction(database.db, async ({ trx }) => lockAccount(trx).compile().sql);
    expect(/ for update$/.test(compiled)).toBe(TEST_DIALECT === 'postgres');
    const row = await inWriteTransaction(database.db, ({ trx }) => lockAccount(trx).executeTakeFirst());
    expect(row?.id).toBe(accountId);
  });

  it.runIf(TEST_DIALECT === 'postgres')('makes a second writer of the same row wait for the first', async () => {
    const other = database.openAnother({ poolMax: 1 });
    try {
      await inWriteTransaction(database.db, async ({ trx }) => {
        await lockAccount(trx).execute();
        const waited = other.kysely.transaction().execute(async (second) => {
          await sql`set local lock_timeout = '200ms'`.execute(second);
          await lockAccount(second).execute();
        });
        await expect(waited).rejects.toMatchObject({ code: '55P03' }); // lock_not_available
      });
    } finally {
      await other.close();
    }
  });

  const tenantRow = (name: string) => ({ id: `ten_${name}`, name, created_at: new Date().toISOString() });
  const tenantsNamed = async (...names: string[]) =>
    (await database.db.kysely.selectFrom('tenants').select('name').where('name', 'in', names).orderBy('name').execute()).map((r) => r.name);

  it('writes a held insert with the statement that takes it, or before the commit when none does', async () => {
    const sent = await inWriteTransaction(database.db, async (write) => {
      await write.hold(write.trx.insertInto('tenants').values(tenantRow('held-taken')));
      // PostgreSQL, one statement: the held insert, this one's own, and a read. (SQLite ran the held one at once.)
      const own = write.trx.insertInto('tenants').values(tenantRow('held-own'));
      if (write.dialect === 'sqlite') await own.execute();
      const creator = write.dialect === 'postgres' ? write.withHeld(own) : write.trx;
      return creator.selectFrom('accounts').select('id').execute();
    });
    expect(sent.map((r) => r.id)).toEqual([accountId]);
    await inWriteTransaction(database.db, async (write) => {
      await write.hold(write.trx.insertInto('tenants').values(tenantRow('held-left')));
    });
    expect(await tenantsNamed('held-taken', 'held-own', 'held-left')).toEqual(['held-left', 'held-own', 'held-taken']);
  });

  it('leaves out what the work held when it is refused, and keeps the refusal for its Idempotency-Key', async () => {
    const tenantId = (await database.db.kysely.selectFrom('accounts').select('tenant_id').executeTakeFirstOrThrow()).tenant_id;
    const refused = runIdempotent(database.db, { tenantId, key: 'held-refused', hash: 'h' }, async (write) => {
      await write.hold(write.trx.insertInto('tenants').values(tenantRow('held-refused')));
      throw validationProblem({ name: [{ code: 'not_allowed', message: 'is taken' }] });
    });
    await expect(refused).rejects.toMatchObject({ status: 422 });
    expect(await tenantsNamed('held-refused')).toEqual([]);
    const kept = await database.db.kysely.selectFrom('idempotency_keys').select('response_status').where('key', '=', 'held-refused').executeTakeFirst();
    expect(kept?.response_status).toBe(422);
  });

  it('adds its count deltas to one counter shard: any on PostgreSQL, always the first on SQLite', async () => {
    const shards = new Set<number>();
    for (let i = 0; i < 200; i++) shards.add(await inWriteTransaction(database.db, async ({ shard }) => shard));
    for (const shard of shards) expect(shard >= 0 && shard < COUNTER_SHARDS).toBe(true);
    if (TEST_DIALECT === 'sqlite') expect([...shards]).toEqual([0]);
    else expect(shards.size).toBeGreaterThan(1);
  });
});
