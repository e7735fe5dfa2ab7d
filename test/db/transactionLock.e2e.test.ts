import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import type { StatementGuard } from '../../src/db/guardedStatement.ts';
import { inWriteTransaction } from '../../src/db/writeTransaction.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

describe("a write's lock and insert in one (tryLockAndInsert)", () => {
  let database: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    tenantId = (await findOrCreateTenant(database.db.kysely, 'locks')).id;
  });
  afterAll(() => database.drop());

  const row = (key: string) => ({ tenant_id: tenantId, key, request_hash: 'h', created_at: new Date().toISOString() });
  const stored = (key: string) =>
    database.db.kysely.selectFrom('idempotency_keys').select(['key', 'request_hash', 'response_status']).where('key', '=', key).execute();

  it('takes the lock and inserts a new row; a row already there is left as it is', async () => {
    const first = await inWriteTransaction(database.db, (write) => write.tryLockAndInsert('k1', 'idempotency_keys', row('k1'), ['tenant_id', 'key']));
    expect(first).toEqual({ locked: true, inserted: true, guarded: true });
    const again = await inWriteTransaction(database.db, (write) =>
      write.tryLockAndInsert('k1', 'idempotency_keys', { ...row('k1'), request_hash: 'other' }, ['tenant_id', 'key']),
    );
    expect(again).toEqual({ locked: true, inserted: false, guarded: true });
    expect(await stored('k1')).toEqual([{ key: 'k1', request_hash: 'h', response_status: null }]);
  });

  /** A guard that holds while the tenant `id` is there; what it was told is kept in `held`. */
  const tenantGuard = (id: string) => {
    const held: boolean[] = [];
    const guard: StatementGuard = {
      select: { compile: () => sql<{ noted: boolean }>`select (1 = 1) as noted from tenants where id = ${id}`.compile(database.db.kysely) },
      held: (noted) => held.push(noted),
      check: async () => {},
    };
    return { guard, held };
  };

  it('locks and inserts nothing when its guard does not hold, and tells the guard when it held', async () => {
    const refused = tenantGuard('ten_none');
    const none = await inWriteTransaction(database.db, (write) =>
      write.tryLockAndInsert('k4', 'idempotency_keys', row('k4'), ['tenant_id', 'key'], undefined, refused.guard),
    );
    expect(none).toEqual({ locked: false, inserted: false, guarded: false });
    expect(refused.held).toEqual([]);
    expect(await stored('k4')).toEqual([]);
    const holding = tenantGuard(tenantId);
    const taken = await inWriteTransaction(database.db, (write) =>
      write.tryLockAndInsert('k4', 'idempotency_keys', row('k4'), ['tenant_id', 'key'], undefined, holding.guard),
    );
    expect(taken).toEqual({ locked: true, inserted: true, guarded: true });
    expect(holding.held).toEqual([true]);
    expect(await stored('k4')).toHaveLength(1);
  });

  it('rolls the row back with its transaction', async () => {
    await expect(
      inWriteTransaction(database.db, async (write) => {
        await write.tryLockAndInsert('k2', 'idempotency_keys', row('k2'), ['tenant_id', 'key']);
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    expect(await stored('k2')).toEqual([]);
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'answers not locked at once while another transaction holds the lock and its uncommitted row, inserting nothing and waiting for nothing',
    async () => {
      const other = database.openAnother({ poolMax: 1 });
      try {
        await inWriteTransaction(database.db, async (write) => {
          expect(await write.tryLockAndInsert('k3', 'idempotency_keys', row('k3'), ['tenant_id', 'key'])).toEqual({
            locked: true,
            inserted: true,
            guarded: true,
          });
          const second = await inWriteTransaction(other, async (write2) => {
            // An insert of the same key would wait for the first transaction: it would fail here (55P03) instead.
            await sql`set local lock_timeout = '200ms'`.execute(write2.trx);
            return write2.tryLockAndInsert('k3', 'idempotency_keys', row('k3'), ['tenant_id', 'key']);
          });
          expect(second).toEqual({ locked: false, inserted: false, guarded: true });
        });
        expect(await stored('k3')).toHaveLength(1);
      } finally {
        await other.close();
      }
    },
  );
});
