import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTER_SHARDS } from '../../src/db/counterShard.ts';
import { inWriteTransaction } from '../../src/db/writeTransaction.ts';
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

  it('adds its count deltas to one counter shard: any on PostgreSQL, always the first on SQLite', async () => {
    const shards = new Set<number>();
    for (let i = 0; i < 200; i++) shards.add(await inWriteTransaction(database.db, async ({ shard }) => shard));
    for (const shard of shards) expect(shard >= 0 && shard < COUNTER_SHARDS).toBe(true);
    if (TEST_DIALECT === 'sqlite') expect([...shards]).toEqual([0]);
    else expect(shards.size).toBeGreaterThan(1);
  });
});
