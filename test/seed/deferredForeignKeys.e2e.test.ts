import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { countRows } from '../../src/lists/counters/listCounts.ts';
import { openBulkInserter } from '../../src/seed/bulkInsert.ts';
import { DeferredForeignKeys } from '../../src/seed/deferredForeignKeys.ts';
import { tenantId } from '../support/seedChecks.ts';
import { seed } from '../support/seedHelpers.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

/** Whether another connection can lock the tenant's row FOR UPDATE at once: not while a foreign key's check holds it FOR KEY SHARE. */
async function tenantRowFree(other: Db, id: string): Promise<boolean> {
  try {
    await sql`select id from tenants where id = ${id} for update nowait`.execute(other.kysely);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return false;
    throw error;
  }
}

/**
 * One new list_counts row of the tenant (a table whose only foreign key is its tenant): a new
 * status each time, as an upsert that updates a row checks no key.
 */
let made = 0;
const countsOf = (tenant: string) =>
  countRows(tenant, [{ list: 'accounts', account_id: '', status: `fk-test-${made++}`, currency: '', card_brand: '', delta: 1 }]);

/**
 * A batch writing `rows` new count rows of the tenant: how many times the transaction had read
 * tenants by the end of its writes (each row's trigger reads it once), and whether another
 * connection could lock the tenant's row then. The batch commits.
 */
async function batchOf(db: Db, other: Db, tenant: string, rows: number, deferForeignKeys: boolean) {
  const inserter = await openBulkInserter(db);
  try {
    return await inserter.batch(
      async (trx, sink) => {
        // The backend's counters may still hold earlier transactions' reads: the difference counts.
        const tenantReads = async () =>
          (
            await sql<{
              n: number;
            }>`select (coalesce(idx_scan, 0) + seq_scan)::int as n from pg_stat_xact_user_tables where relid = 'tenants'::regclass`.execute(trx)
          ).rows[0].n;
        const before = await tenantReads();
        await sink.adjust(
          countRows(
            tenant,
            Array.from({ length: rows }, (_, i) => ({
              list: 'accounts' as const,
              account_id: '',
              status: `fk-test-${made}-${i}`,
              currency: '',
              card_brand: '',
              delta: 1,
            })),
          ),
          [],
        );
        made++;
        return { reads: (await tenantReads()) - before, free: await tenantRowFree(other, tenant) };
      },
      { deferForeignKeys: deferForeignKeys ? { tenantId: tenant } : undefined },
    );
  } finally {
    await inserter.close();
  }
}

describe.runIf(TEST_DIALECT === 'postgres')('PostgreSQL: a load’s foreign keys checked once before its commit (deferredForeignKeys.ts)', () => {
  let database: TestDatabase;
  let other: Db;
  let tenant: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    other = database.openAnother({ poolMax: 1 });
    await seed(database.db, 'fk', 1, 0);
    tenant = await tenantId(database.db, 'fk');
  });
  afterAll(async () => {
    await other.close();
    await database.drop();
  });

  it('rows go in without a trigger per row: what they reference is read once, and locked by the statement’s end as the triggers lock it', async () => {
    // With the triggers each of the 40 rows reads its tenant; deferred, one statement reads it.
    const triggered = await batchOf(database.db, other, tenant, 40, false);
    expect(triggered.reads).toBeGreaterThanOrEqual(40);
    expect(triggered.free).toBe(false);
    const deferred = await batchOf(database.db, other, tenant, 40, true);
    expect(deferred.reads).toBeLessThanOrEqual(2);
    expect(deferred.free).toBe(false);
    // Both batches' counts committed.
    const n = await database.db.kysely.selectFrom('list_counts').select('n').where('tenant_id', '=', tenant).where('status', 'like', 'fk-test-%').execute();
    expect(n.length).toBe(80);
  });

  it('only the statement written runs without triggers; what it referenced is locked FOR KEY SHARE from its end until the commit', async () => {
    await database.db.kysely.transaction().execute(async (trx) => {
      const deferred = await DeferredForeignKeys.open(trx, tenant);
      expect(deferred).toBeDefined();
      const rows = countRows(tenant, [{ list: 'accounts', account_id: '', status: 'fk-check', currency: '', card_brand: '', delta: 1 }]);
      await deferred!.around(trx, 'list_counts', rows, async (noted) => {
        expect((await sql<{ role: string }>`select current_setting('session_replication_role') as role`.execute(trx)).rows[0].role).toBe('replica');
        await trx
          .insertInto('list_counts')
          .values([...noted])
          .execute();
      });
      expect((await sql<{ role: string }>`select current_setting('session_replication_role') as role`.execute(trx)).rows[0].role).toBe('origin');
      expect(await tenantRowFree(other, tenant)).toBe(false);
      await deferred!.check(trx);
    });
    expect(await tenantRowFree(other, tenant)).toBe(true);
  });

  it('a row referencing a value that is not there fails the batch, which rolls back', async () => {
    const inserter = await openBulkInserter(database.db);
    try {
      const before = await database.db.kysely.selectFrom('list_counts').select('status').where('status', 'like', 'fk-test-%').execute();
      await expect(
        inserter.batch(
          async (_trx, sink) => {
            await sink.adjust(countsOf(tenant), []);
            await sink.adjust(countsOf('ten_not_there'), []);
          },
          { deferForeignKeys: { tenantId: tenant } },
        ),
      ).rejects.toThrow(/violates foreign key constraint "list_counts_tenant_id_fkey"/);
      const after = await database.db.kysely.selectFrom('list_counts').select('status').where('status', 'like', 'fk-test-%').execute();
      expect(after).toEqual(before);
    } finally {
      await inserter.close();
    }
  });

  it('a table with a trigger of its own keeps every trigger', async () => {
    await sql`create function fk_test_noop() returns trigger language plpgsql as $$ begin return new; end $$`.execute(database.db.kysely);
    await sql`create trigger fk_test_noop before insert on list_counts for each row execute function fk_test_noop()`.execute(database.db.kysely);
    try {
      expect((await batchOf(database.db, other, tenant, 40, true)).reads).toBeGreaterThanOrEqual(40);
    } finally {
      await sql`drop trigger fk_test_noop on list_counts`.execute(database.db.kysely);
      await sql`drop function fk_test_noop()`.execute(database.db.kysely);
    }
  });

  it('looks a value up in the load’s tenant: a row referencing another tenant’s account fails, as on Citus, where each tenant’s rows are on its own shard', async () => {
    await seed(database.db, 'fk-other', 1, 1);
    const other = await tenantId(database.db, 'fk-other');
    const theirs = await database.db.kysely.selectFrom('payments').selectAll().where('tenant_id', '=', other).executeTakeFirstOrThrow();
    const mine = await database.db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenant).executeTakeFirstOrThrow();
    const write = (accountId: string) =>
      database.db.kysely.transaction().execute(async (trx) => {
        const deferred = await DeferredForeignKeys.open(trx, tenant);
        const row = { ...theirs, id: `pay_fk_${accountId}`, tenant_id: tenant, account_id: accountId };
        await deferred!.around(trx, 'payments', [row], async (noted) =>
          trx
            .insertInto('payments')
            .values([...noted])
            .execute(),
        );
        await deferred!.check(trx);
        throw new Error('rolled back');
      });
    await expect(write(mine.id)).rejects.toThrow('rolled back');
    await expect(write(theirs.account_id)).rejects.toThrow(/violates foreign key constraint "payments_account_id_fkey": 1 value\(s\) not in accounts/);
  });
});
