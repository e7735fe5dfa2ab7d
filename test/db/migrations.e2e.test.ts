import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Kysely, Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { migratorFor, migrateToLatest } from '../../src/db/migrate.ts';
import { toPaymentResource } from '../../src/payments/paymentResource.ts';
import { toDeliveryResource } from '../../src/events/deliveryResource.ts';
import { rebuildBuckets } from '../../src/lists/counters/listBuckets.ts';
import { amountClassDeltas } from '../../src/lists/counters/amountClassBuckets.ts';
import { caseFold } from '../../src/lists/request/caseFold.ts';
import { TEST_DIALECT, TEST_PG_URL, TEST_PG_POOLER } from '../support/testDatabase.ts';

async function emptyDatabase(): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (TEST_DIALECT === 'postgres') {
    const schema = `m_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const db = openDatabase(TEST_PG_URL, { searchPath: schema, pooler: TEST_PG_POOLER });
    return {
      db,
      drop: async () => {
        await db.close();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'migrate-'));
  const db = openDatabase(`sqlite:${join(dir, 'm.sqlite')}`);
  return {
    db,
    drop: async () => {
      await db.close();
      rmSync(dir, { recursive: true });
    },
  };
}

/** A database at 0002 holding tenant ten_1 and its account acc_1 (USD), created at `now`: what later migrations backfill from. */
async function atIdempotencyWithAnAccount(db: Db, now: string) {
  const migrator = await migratorFor(db.kysely, db.dialect);
  expect((await migrator.migrateTo('0002_idempotency')).error).toBeUndefined();
  await sql`insert into tenants (id, name, created_at) values ('ten_1', 'old', ${now})`.execute(db.kysely);
  await sql`insert into accounts (id, tenant_id, name, email, currency, status, metadata, created_at, updated_at)
    values ('acc_1', 'ten_1', 'A', 'a@example.com', 'USD', 'active', '{}', ${now}, ${now})`.execute(db.kysely);
  return migrator;
}

/** A payment of acc_1 as written at 0002: its row alone, no counts. */
async function insertOldPayment(db: Db, p: { id: string; amount: number; currency: string; status?: string; brand?: string; created_at: string }) {
  await sql`insert into payments (id, tenant_id, account_id, amount, currency, status, amount_refunded, method, card_brand, card_last4,
      card_exp_month, card_exp_year, card_fingerprint, description, reference, failure_code, failure_message, metadata, captured_at, created_at, updated_at)
    values (${p.id}, 'ten_1', 'acc_1', ${p.amount}, ${p.currency}, ${p.status ?? 'succeeded'}, 0, 'card', ${p.brand ?? 'visa'}, '4242', 12, 2030, 'fp', 'd', null, null, null, '{}', ${p.created_at}, ${p.created_at}, ${p.created_at})`.execute(
    db.kysely,
  );
}

/** The secondary indexes of payment_metadata by name (PostgreSQL: its primary key's too). */
async function paymentEntryIndexes(db: Db) {
  const query =
    db.dialect === 'postgres'
      ? sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'payment_metadata' order by 1`
      : sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'payment_metadata' and name not like 'sqlite_autoindex%' order by 1`;
  return (await query.execute(db.kysely)).rows;
}

describe('migrations', () => {
  it.runIf(TEST_DIALECT === 'postgres')(
    'leave no lock behind on any server connection, behind a pooler too: the lock ends with their transaction',
    async () => {
      const held = async () => {
        const admin = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL ?? TEST_PG_URL });
        await admin.connect();
        try {
          // Kysely's lock key 3853314791062309107, held by a session with no transaction open: leaked.
          const { rows } = await admin.query<{ n: number }>(`
          select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid)
          where l.locktype = 'advisory' and l.granted and a.xact_start is null
            and ((l.classid::bigint << 32) | l.objid::bigint) = 3853314791062309107`);
          return rows[0].n;
        } finally {
          await admin.end();
        }
      };
      // Several at once, as instances starting together do: behind a transaction pooler each
      // statement may then run on another server connection.
      const databases = await Promise.all(Array.from({ length: 6 }, () => emptyDatabase()));
      try {
        await Promise.all(databases.map(({ db }) => migrateToLatest(db.kysely, db.dialect)));
        expect(await held()).toBe(0);
      } finally {
        for (const { drop } of databases) await drop();
      }
    },
  );

  it.runIf(TEST_DIALECT === 'postgres')('run to the end whatever PG_STATEMENT_TIMEOUT_MS says: a migration is not a request', async () => {
    const schema = `m_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL ?? TEST_PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const db = openDatabase(TEST_PG_URL, { searchPath: schema, pooler: TEST_PG_POOLER, statementTimeoutMs: 1_000 });
    try {
      // A backfill over millions of rows is a statement far longer than any request may take.
      const slow = { up: async (trx: Kysely<unknown>) => void (await sql`select pg_sleep(2)`.execute(trx)) };
      const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => ({ '0001_slow_backfill': slow }) }, migrationTableSchema: schema });
      const { error, results } = await migrator.migrateToLatest();
      expect(error).toBeUndefined();
      expect(results?.map((r) => r.status)).toEqual(['Success']);
      await expect(sql`select pg_sleep(2)`.execute(db.kysely)).rejects.toMatchObject({ code: '57014' });
    } finally {
      await db.close();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'wait for another instance migrating, however long, whatever PG_STATEMENT_TIMEOUT_MS says: waiting is part of migrating',
    async () => {
      // The migration lock is one for the whole server (Kysely's key): another instance starting,
      // or any schema migrating on a shared server, holds it for as long as its migrations run.
      const schema = `m_${randomBytes(5).toString('hex')}`;
      const adminUrl = process.env.TEST_PG_ADMIN_URL ?? TEST_PG_URL;
      const admin = new pg.Client({ connectionString: adminUrl });
      const other = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await other.connect();
      await admin.query(`create schema ${schema}`);
      const timeoutMs = 300;
      const db = openDatabase(TEST_PG_URL, { searchPath: schema, pooler: TEST_PG_POOLER, statementTimeoutMs: timeoutMs });
      try {
        await other.query('begin');
        const holder = (await other.query<{ pid: number }>('select pg_backend_pid() as pid, pg_advisory_xact_lock(3853314791062309107)')).rows[0].pid;
        const migrating = migrateToLatest(db.kysely, db.dialect).then(
          (names) => ({ names }),
          (error: unknown) => ({ error }),
        );
        // Held until a session has waited for it for several times the statement timeout (the
        // wait started with the lock's statement; it is the holder's that blocks it).
        const waitedFor = async () => {
          const { rows } = await admin.query<{ waited: boolean }>(
            `select coalesce(bool_or(now() - a.query_start > $2 * interval '1 millisecond'), false) as waited
             from pg_stat_activity a where $1 = any(pg_blocking_pids(a.pid))`,
            [holder, 4 * timeoutMs],
          );
          return rows[0].waited;
        };
        const since = performance.now();
        let settled: unknown;
        void migrating.then((outcome) => (settled = outcome));
        while (!settled && !(await waitedFor()) && performance.now() - since < 20_000) await new Promise((r) => setTimeout(r, 50));
        await other.query('commit');
        const outcome = (await migrating) as { names?: string[]; error?: unknown };
        expect(outcome.error).toBeUndefined();
        expect(outcome.names).toContain('0026_amount_indexes_carry_created_at');
      } finally {
        await other.query('rollback').catch(() => {});
        await other.end();
        await db.close();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      }
    },
  );

  it('backfill counts, bucket counts and stored representations for rows written before them', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      const { error } = await (await migratorFor(db.kysely, db.dialect)).migrateTo('0002_idempotency');
      expect(error).toBeUndefined();
      const now = '2026-01-02T03:04:05.678Z';
      await sql`insert into tenants (id, name, created_at) values ('ten_1', 'old', ${now})`.execute(db.kysely);
      await sql`insert into accounts (id, tenant_id, name, email, currency, status, metadata, created_at, updated_at)
        values ('acc_1', 'ten_1', 'ÜNÏCÖDÉ Straße', 'Ölaf@Example.COM', 'USD', 'active', '{"a":"b"}', ${now}, ${now})`.execute(db.kysely);
      await sql`insert into payments (id, tenant_id, account_id, amount, currency, status, amount_refunded, method, card_brand, card_last4,
          card_exp_month, card_exp_year, card_fingerprint, description, reference, failure_code, failure_message, metadata, captured_at, created_at, updated_at)
        values ('pay_1', 'ten_1', 'acc_1', 1234, 'USD', 'succeeded', 0, 'card', 'visa', '4242', 12, 2030, 'fp', 'd', null, null, null, '{}', ${now}, ${now}, ${now})`.execute(
        db.kysely,
      );

      expect(await migrateToLatest(db.kysely, db.dialect)).toEqual([
        '0003_list_counts',
        '0004_resource_json',
        '0005_account_status_index',
        '0006_list_buckets',
        '0007_bucket_levels',
        '0008_counter_shards',
        '0009_folded_text',
        '0010_seed_runs',
        '0011_refund_reason',
        '0012_api_key_lifecycle',
        '0013_events_and_webhooks',
        '0015_ordered_deliveries',
        '0016_metadata_entries',
        '0017_tenant_write_positions',
        '0018_counted_dimensions',
        '0019_amount_in_created_indexes',
        '0020_metadata_value_counts',
        '0021_amount_class_buckets',
        '0022_one_digit_amount_classes',
        '0023_metadata_entries_in_created_order',
        '0024_metadata_value_counts_by_status',
        '0025_two_digit_amount_classes',
        '0026_amount_indexes_carry_created_at',
        '0027_last4_index_carries_filters',
        '0028_dimension_indexes_carry_dimensions',
        '0029_sqlite_dimension_indexes_carry_dimensions',
        '0030_payment_entries_carry_dimensions',
        '0031_pair_buckets',
        '0032_payment_entries_carry_status',
        '0033_list_changes',
        '0035_tenant_pinned_sweeps',
        '0036_coarser_counter_levels',
      ]);
      // 0016 copied every key/value pair of existing metadata into the search tables.
      const entries = (table: 'account_metadata' | 'payment_metadata') =>
        db.kysely.selectFrom(table).select(['tenant_id', 'key', 'value', 'record_id']).execute();
      expect(await entries('account_metadata')).toEqual([{ tenant_id: 'ten_1', key: 'a', value: 'b', record_id: 'acc_1' }]);
      expect(await entries('payment_metadata')).toEqual([]);
      // 0023 gave each entry its record's created_at (the same instant, however the database returns it).
      const [entry] = await db.kysely.selectFrom('account_metadata').select('created_at').execute();
      expect(new Date(entry.created_at).toISOString()).toBe(now);
      // 0020 counted them per value, 0024 per value and record status.
      const values = await db.kysely.selectFrom('metadata_value_counts').select(['tenant_id', 'list', 'key', 'value', 'status', 'shard', 'n']).execute();
      expect(values.map((v) => ({ ...v, n: Number(v.n) }))).toEqual([
        { tenant_id: 'ten_1', list: 'accounts', key: 'a', value: 'b', status: 'active', shard: 0, n: 1 },
      ]);
      const payment = await db.kysely.selectFrom('payments').selectAll().executeTakeFirstOrThrow();
      expect(JSON.parse(payment.resource)).toEqual(toPaymentResource(payment));
      // 0011 spliced the new field into the stored text exactly where the renderer writes it.
      expect(payment.resource).toBe(JSON.stringify(toPaymentResource(payment)));
      expect(JSON.parse(payment.resource)).toMatchObject({ refund_reason: null });
      expect(JSON.parse(payment.resource)).toMatchObject({ id: 'pay_1', amount: 1234, created_at: now, card: { last4: '4242' } });
      // Texts folded with the migration's own copy of the folding, which is the code's.
      const account = await db.kysely.selectFrom('accounts').selectAll().executeTakeFirstOrThrow();
      expect([account.name_folded, account.email_folded]).toEqual(['ünïcödé strasse', 'ölaf@example.com']);
      expect([account.name_folded, account.email_folded]).toEqual([caseFold(account.name), caseFold(account.email)]);
      const counts = await db.kysely
        .selectFrom('list_counts')
        .select(['list', 'account_id', 'status', 'currency', 'card_brand', 'n'])
        .orderBy('list')
        .orderBy('account_id')
        .orderBy('status')
        .orderBy('currency')
        .orderBy('card_brand')
        .execute();
      // Every combination of the record's counted values, '' for the dimensions left out.
      const combinations = (values: string[]) =>
        values.reduce<string[][]>(
          (all, v) =>
            all.flatMap((c) => [
              [...c, ''],
              [...c, v],
            ]),
          [[]],
        );
      const expectedCounts = [
        ...combinations(['', 'active', 'USD', '']).map((c) => ['accounts', ...c, 1]),
        ...combinations(['acc_1', 'succeeded', 'USD', 'visa']).map((c) => ['payments', ...c, 1]),
      ];
      const uniqueSorted = (rows: unknown[][]) =>
        [...new Map(rows.map((r) => [JSON.stringify(r), r])).values()].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
      expect(uniqueSorted(counts.map((c) => [c.list, c.account_id, c.status, c.currency, c.card_brand, Number(c.n)]))).toEqual(uniqueSorted(expectedCounts));
      expect(counts).toHaveLength(4 + 16);
      // 2026-01-02T03:04:05Z is 16-day bucket 1278, day 20455, hour 490923 and 5-minute bucket 5891076
      // since the epoch; 1234 is 1xxx, 12xx, 123x and itself.
      const readBuckets = async () =>
        (
          await db.kysely
            .selectFrom('list_buckets')
            .select(['sort_key', 'level', 'account_id', 'status', 'currency', 'card_brand', 'bucket', 'n'])
            .orderBy('sort_key')
            .orderBy('account_id')
            .orderBy('status')
            .orderBy('currency')
            .orderBy('card_brand')
            .orderBy('level')
            .execute()
        ).map((b) => [b.sort_key, b.level, b.account_id, b.status, b.currency, b.card_brand, Number(b.bucket), Number(b.n)]);
      const buckets = await readBuckets();
      const levels = { amount: [31, 212, 1123, 1234], created_at: [1278, 20455, 490923, 5891076] };
      const slices = [
        ['', '', '', 'visa'],
        ['', '', 'USD', ''],
        ['', '', '', ''],
        ['', 'succeeded', '', ''],
        ['acc_1', '', '', ''],
        // 0031: the pairs of status, currency and card brand.
        ['', 'succeeded', 'USD', ''],
        ['', 'succeeded', '', 'visa'],
        ['', '', 'USD', 'visa'],
      ].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
      // 0021 and 0022: 1234 has four digits (class 04) and lead 1, above the round 1000 (class 0411),
      // its created_at buckets down to the hour for the whole list, to the day for its currency (0036).
      const classSlices = [
        ['', '', '', ''],
        ['', '', 'USD', ''],
      ];
      expect(buckets).toEqual([
        ...(['amount', 'created_at'] as const).flatMap((sortKey) =>
          slices.flatMap((slice) =>
            // One account's slices keep 16 days and one digit, (0031) the pairs two levels, the rest three (0036).
            levels[sortKey]
              .slice(0, slice[0] === 'acc_1' ? 1 : slice.filter((v) => v !== '').length === 2 ? 2 : 3)
              .map((bucket, level) => [sortKey, level, ...slice, bucket, 1]),
          ),
        ),
        ...(['created_at.a04', 'created_at.a0411'] as const).flatMap((sortKey) =>
          // One currency's classes to the day (0036).
          classSlices.flatMap((slice) => levels.created_at.slice(0, slice[2] === '' ? 3 : 2).map((bucket, level) => [sortKey, level, ...slice, bucket, 1])),
        ),
        // 0025: and lead digits 12, above the round 1200 (class 04121), on the 16 days and the day only.
        ...classSlices.flatMap((slice) => levels.created_at.slice(0, 2).map((bucket, level) => ['created_at.a04121', level, ...slice, bucket, 1])),
      ]);
      // The latest migration's frozen bucket arithmetic is the code's: levels never change without a migration that rebuilds them.
      await db.kysely.transaction().execute((trx) => rebuildBuckets(trx, db.dialect));
      expect(await readBuckets()).toEqual(buckets);
    } finally {
      await drop();
    }
  });

  /** Whether migration 0036 keeps a list_buckets row (sort key, level, account, currency): the rebuild counts the levels of now. */
  const keptBy0036 = (sortKey: string, level: number, account: string, currency: string) =>
    !(
      (['created_at', 'amount'].includes(sortKey) && (level === 3 || (account !== '' && account !== '-' && level >= 1))) ||
      (sortKey.startsWith('created_at.a') && currency !== '' && currency !== '-' && level === 2)
    );

  it('add amount classes of one significant digit (0022), then of two on the coarse levels (0025), beside the classes of digits, counted as a write counts them, and back', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      const now = '2026-01-02T03:04:05.678Z';
      const migrator = await atIdempotencyWithAnAccount(db, now);
      // Round values, one either side, 0, past 11 digits and below 0; across currencies and hours.
      const amounts = [-5, 0, 1, 2, 9, 10, 11, 19, 20, 21, 99, 100, 101, 500, 999, 1000, 1001, 4999, 5000, 5000, 5001, 10_000, 99_999_999_999, 123_456_789_012];
      const payments = amounts.map((amount, i) => ({
        id: `pay_${i}`,
        amount,
        currency: ['USD', 'EUR', 'GBP'][i % 3],
        created_at: new Date(Date.parse(now) + (i % 5) * 3_600_000 + i * 86_400_000 * 3).toISOString(),
      }));
      for (const p of payments) await insertOldPayment(db, p);
      const readClasses = async () =>
        (
          await db.kysely
            .selectFrom('list_buckets')
            .select(['sort_key', 'level', 'currency', 'bucket', 'n'])
            .where('sort_key', 'like', 'created_at.a%')
            .orderBy('sort_key')
            .orderBy('level')
            .orderBy('currency')
            .orderBy('bucket')
            .execute()
        ).map((b) => `${b.sort_key} ${b.level} ${b.currency || '-'} ${Number(b.bucket)} ${Number(b.n)}`);
      expect((await migrator.migrateTo('0021_amount_class_buckets')).error).toBeUndefined();
      const digitClasses = await readClasses();
      expect(digitClasses).toContain(`created_at.a04 2 - ${Math.floor(Date.parse(payments[16].created_at) / 3_600_000)} 1`);

      expect((await migrator.migrateTo('0022_one_digit_amount_classes')).error).toBeUndefined();
      // What each payment's create would have added (amountClassDeltas) to the classes of these kinds (up to 0022's, or every one), summed per row.
      const expectedOf = (longestKey: number) => {
        const expected = new Map<string, number>();
        for (const p of payments) {
          for (const d of amountClassDeltas(p, 1)) {
            if (d.sortKey.length > longestKey) continue;
            const key = `${d.sortKey} ${d.level} ${d.currency || '-'} ${d.bucket}`;
            expected.set(key, (expected.get(key) ?? 0) + d.delta);
          }
        }
        return [...expected].map(([k, n]) => `${k} ${n}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      };
      // What a write counts now: the migrations' rows but those migration 0036 drops.
      const kept0036 = (rows: string[]) =>
        rows.filter((r) => {
          const [sortKey, level, currency] = r.split(' ');
          return keptBy0036(sortKey, Number(level), '', currency);
        });
      const classes = await readClasses();
      expect(kept0036(classes)).toEqual(expectedOf('created_at.a0000'.length));
      // 0021's classes stay as they were; the finer ones come beside them.
      expect(classes.filter((c) => c.split(' ')[0].length === 'created_at.a04'.length)).toEqual(digitClasses);
      expect(new Set(classes.map((c) => c.split(' ')[0]).filter((k) => k.length > 'created_at.a04'.length))).toEqual(
        new Set(
          [
            '0000',
            '0100',
            '0110',
            '0120',
            '0190',
            '0210',
            '0211',
            '0220',
            '0221',
            '0291',
            '0310',
            '0311',
            '0350',
            '0391',
            '0410',
            '0411',
            '0441',
            '0450',
            '0451',
            '0510',
            '1191',
            '1200',
          ].map((c) => `created_at.a${c}`),
        ),
      );
      // The two payments of 5000 (one in EUR, one in GBP) share the whole list's round class.
      const wholeList16Days = (sortKey: string) => classes.filter((c) => c.startsWith(`${sortKey} 0 - `)).reduce((n, c) => n + Number(c.split(' ')[4]), 0);
      expect([wholeList16Days('created_at.a0450'), wholeList16Days('created_at.a0451'), wholeList16Days('created_at.a0441')]).toEqual([2, 1, 1]);

      // 0025 adds the two-significant-digit classes, on the 16 days and the day: as a write counts them.
      expect((await migrator.migrateTo('0025_two_digit_amount_classes')).error).toBeUndefined();
      const withTwoDigits = await readClasses();
      expect(kept0036(withTwoDigits)).toEqual(expectedOf(Infinity));
      const twoDigit = withTwoDigits.filter((c) => c.split(' ')[0].length === 'created_at.a00000'.length);
      expect(new Set(twoDigit.map((c) => Number(c.split(' ')[1])))).toEqual(new Set([0, 1]));
      // 10, 11, 19 … 99 are classes of their own; 101 is above the round 100 (10 and 0 past it), 999 above 990, 4999 above 4900, 99,999,999,999 above 99·10^9.
      expect(new Set(twoDigit.map((c) => c.split(' ')[0].slice('created_at.a'.length)))).toEqual(
        new Set([
          '02100',
          '02110',
          '02190',
          '02200',
          '02210',
          '02990',
          '03100',
          '03101',
          '03500',
          '03991',
          '04100',
          '04101',
          '04491',
          '04500',
          '04501',
          '05100',
          '11991',
        ]),
      );
      // The code's rebuild (a recount) gives the same rows, but those migration 0036 drops.
      await sql`create table lb_saved as select * from list_buckets`.execute(db.kysely);
      await db.kysely.transaction().execute((trx) => rebuildBuckets(trx, db.dialect));
      expect(await readClasses()).toEqual(kept0036(withTwoDigits));
      // As they were, to go back down.
      await db.kysely.deleteFrom('list_buckets').execute();
      await sql`insert into list_buckets select * from lb_saved`.execute(db.kysely);
      await sql`drop table lb_saved`.execute(db.kysely);
      expect((await migrator.migrateTo('0023_metadata_entries_in_created_order')).error).toBeUndefined();
      expect(await readClasses()).toEqual(classes);

      expect((await migrator.migrateTo('0021_amount_class_buckets')).error).toBeUndefined();
      expect(await readClasses()).toEqual(digitClasses);
    } finally {
      await drop();
    }
  });

  it('give each payment entry its payment’s currency, card brand and amount, in the same key order (0030)', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      expect((await (await migratorFor(db.kysely, db.dialect)).migrateTo('0029_sqlite_dimension_indexes_carry_dimensions')).error).toBeUndefined();
      const now = '2026-01-02T03:04:05.000Z';
      await sql`insert into tenants (id, name, created_at) values ('ten_1', 'old', ${now})`.execute(db.kysely);
      await sql`insert into accounts (id, tenant_id, name, email, name_folded, email_folded, currency, status, metadata, created_at, updated_at, resource)
        values ('acc_1', 'ten_1', 'a', 'a@example.com', 'a', 'a@example.com', 'USD', 'active', '{"a":"b"}', ${now}, ${now}, '{}')`.execute(db.kysely);
      await sql`insert into account_metadata (tenant_id, key, value, created_at, record_id) values ('ten_1', 'a', 'b', ${now}, 'acc_1')`.execute(db.kysely);
      for (const [id, amount, currency, brand] of [
        ['pay_1', 1234, 'USD', 'visa'],
        ['pay_2', 99, 'EUR', 'amex'],
      ] as const) {
        await sql`insert into payments (id, tenant_id, account_id, amount, currency, status, amount_refunded, method, card_brand, card_last4,
            card_exp_month, card_exp_year, card_fingerprint, description, reference, failure_code, failure_message, metadata, captured_at, created_at, updated_at, resource)
          values (${id}, 'ten_1', 'acc_1', ${amount}, ${currency}, 'succeeded', 0, 'card', ${brand}, '4242', 12, 2030, 'fp', null, null, null, null,
            '{"channel":"web"}', ${now}, ${now}, ${now}, '{}')`.execute(db.kysely);
        await sql`insert into payment_metadata (tenant_id, key, value, created_at, record_id) values ('ten_1', 'channel', 'web', ${now}, ${id})`.execute(
          db.kysely,
        );
      }
      const migrator = await migratorFor(db.kysely, db.dialect);
      expect((await migrator.migrateTo('0030_payment_entries_carry_dimensions')).error).toBeUndefined();
      const entries = await db.kysely
        .selectFrom('payment_metadata')
        .select(['tenant_id', 'key', 'value', 'record_id', 'currency', 'card_brand', 'amount'])
        .orderBy('record_id')
        .execute();
      expect(entries.map((e) => ({ ...e, amount: Number(e.amount) }))).toEqual([
        { tenant_id: 'ten_1', key: 'channel', value: 'web', record_id: 'pay_1', currency: 'USD', card_brand: 'visa', amount: 1234 },
        { tenant_id: 'ten_1', key: 'channel', value: 'web', record_id: 'pay_2', currency: 'EUR', card_brand: 'amex', amount: 99 },
      ]);
      // Accounts' entries are left as they were; the value-and-record index is there again.
      expect(await db.kysely.selectFrom('account_metadata').select(['key', 'value', 'record_id']).execute()).toEqual([
        { key: 'a', value: 'b', record_id: 'acc_1' },
      ]);
      const indexes = await paymentEntryIndexes(db);
      expect(indexes.map((i) => i.name)).toEqual(
        db.dialect === 'postgres' ? ['payment_metadata_pkey', 'payment_metadata_value_record'] : ['payment_metadata_value_record'],
      );
    } finally {
      await drop();
    }
  });

  it('give each payment entry its payment’s status, and the entries an index in amount order (0032)', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      const now = '2026-01-02T03:04:05.678Z';
      const migrator = await atIdempotencyWithAnAccount(db, now);
      for (const [i, status] of ['succeeded', 'failed', 'refunded'].entries()) {
        await insertOldPayment(db, { id: `pay_${i}`, amount: 1000 - i, status, currency: 'EUR', brand: 'visa', created_at: now });
      }
      expect((await migrator.migrateTo('0031_pair_buckets')).error).toBeUndefined();
      for (const i of [0, 1, 2]) {
        await sql`insert into payment_metadata (tenant_id, key, value, created_at, record_id, currency, card_brand, amount)
          values ('ten_1', 'channel', 'web', ${now}, ${`pay_${i}`}, 'EUR', 'visa', ${1000 - i})`.execute(db.kysely);
      }
      expect((await migrator.migrateTo('0032_payment_entries_carry_status')).error).toBeUndefined();
      const entries = await db.kysely.selectFrom('payment_metadata').select(['record_id', 'status', 'amount']).orderBy('record_id').execute();
      expect(entries.map((e) => ({ ...e, amount: Number(e.amount) }))).toEqual([
        { record_id: 'pay_0', status: 'succeeded', amount: 1000 },
        { record_id: 'pay_1', status: 'failed', amount: 999 },
        { record_id: 'pay_2', status: 'refunded', amount: 998 },
      ]);
      const indexes = await paymentEntryIndexes(db);
      expect(indexes.map((i) => i.name)).toEqual(
        db.dialect === 'postgres'
          ? ['payment_metadata_amount_order', 'payment_metadata_pkey', 'payment_metadata_value_record']
          : ['payment_metadata_amount_order', 'payment_metadata_value_record'],
      );
    } finally {
      await drop();
    }
  });

  it('count the pairs of status, currency and card brand in buckets (0031) as a write counts them, and back', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      const now = '2026-01-02T03:04:05.678Z';
      const migrator = await atIdempotencyWithAnAccount(db, now);
      // Every combination of three statuses, two currencies and two brands, across bucket edges of both columns.
      const payments = Array.from({ length: 24 }, (_, i) => ({
        id: `pay_${i}`,
        amount: [999, 1000, 1001, 12_345][i % 4],
        status: ['succeeded', 'failed', 'refunded'][i % 3],
        currency: ['USD', 'EUR'][Math.floor(i / 3) % 2],
        brand: ['visa', 'amex'][Math.floor(i / 6) % 2],
        created_at: new Date(Date.parse(now) + i * 299_999 + (i % 7) * 86_400_000).toISOString(),
      }));
      for (const p of payments) await insertOldPayment(db, p);
      const readBuckets = async () =>
        (
          await db.kysely
            .selectFrom('list_buckets')
            .select(['sort_key', 'level', 'account_id', 'status', 'currency', 'card_brand', 'bucket', 'n'])
            .orderBy(['sort_key', 'level', 'account_id', 'status', 'currency', 'card_brand', 'bucket'])
            .execute()
        ).map(
          (b) =>
            `${b.sort_key} ${b.level} ${b.account_id || '-'} ${b.status || '-'} ${b.currency || '-'} ${b.card_brand || '-'} ${Number(b.bucket)} ${Number(b.n)}`,
        );
      const pairRows = (rows: string[]) =>
        rows.filter(
          (r) =>
            r
              .split(' ')
              .slice(2, 6)
              .filter((v) => v !== '-').length === 2,
        );
      expect((await migrator.migrateTo('0030_payment_entries_carry_dimensions')).error).toBeUndefined();
      const before = await readBuckets();
      expect(pairRows(before)).toEqual([]);
      expect((await migrator.migrateTo('0031_pair_buckets')).error).toBeUndefined();
      const after = await readBuckets();
      // Three pairs, on the coarse levels (2 of created_at, 2 of amount), and every payment in one bucket of each.
      expect(pairRows(after).reduce((n, r) => n + Number(r.split(' ')[7]), 0)).toBe(3 * 4 * payments.length);
      expect(after.filter((r) => !pairRows(after).includes(r))).toEqual(before);
      // The code's rebuild (a recount), which counts every slice as a write does, gives the same rows, but those migration 0036 drops.
      await sql`create table lb_saved as select * from list_buckets`.execute(db.kysely);
      await db.kysely.transaction().execute((trx) => rebuildBuckets(trx, db.dialect));
      expect(await readBuckets()).toEqual(
        after.filter((r) => {
          const [sortKey, level, account, , currency] = r.split(' ');
          return keptBy0036(sortKey, Number(level), account, currency);
        }),
      );
      // As they were, to go back down.
      await db.kysely.deleteFrom('list_buckets').execute();
      await sql`insert into list_buckets select * from lb_saved`.execute(db.kysely);
      await sql`drop table lb_saved`.execute(db.kysely);
      // Back to 0030 (the one before; 0030 has no way down).
      expect((await migrator.migrateTo('0030_payment_entries_carry_dimensions')).error).toBeUndefined();
      expect(await readBuckets()).toEqual(before);
    } finally {
      await drop();
    }
  });

  it('queue the pending deliveries of each endpoint behind its first, in event order, and tell resends apart (0015)', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      const { error } = await (await migratorFor(db.kysely, db.dialect)).migrateTo('0013_events_and_webhooks');
      expect(error).toBeUndefined();
      const at = (s: number) => `2026-01-02T03:04:0${s}.000Z`;
      await sql`insert into tenants (id, name, created_at) values ('ten_1', 'old', ${at(0)})`.execute(db.kysely);
      await sql`insert into webhook_endpoints (id, tenant_id, url, enabled_events, enabled, secret, consecutive_failures, created_at, updated_at, resource)
        values ('we_1', 'ten_1', 'https://x.example', '["*"]', 1, 's', 0, ${at(0)}, ${at(0)}, '{}')`.execute(db.kysely);
      for (const [id, second] of [
        ['evt_a', 1],
        ['evt_b', 2],
        ['evt_c', 3],
      ] as const)
        await sql`insert into events (id, tenant_id, type, resource_id, created_at, resource) values (${id}, 'ten_1', 'account.created', 'acc_1', ${at(second)}, '{}')`.execute(
          db.kysely,
        );
      const delivery = (id: string, eventId: string, created: string, status: string, attempts: number, next: string | null) => {
        const row = { id, tenant_id: 'ten_1', endpoint_id: 'we_1', event_id: eventId, status, attempts, next_attempt_at: next };
        const full = { ...row, last_status_code: null, last_latency_ms: null, last_error: null, created_at: created, updated_at: created };
        return sql`insert into webhook_deliveries (id, tenant_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at, updated_at, resource)
          values (${id}, 'ten_1', 'we_1', ${eventId}, ${status}, ${attempts}, ${next}, ${created}, ${created}, ${JSON.stringify(toDeliveryResource(full))})`.execute(
          db.kysely,
        );
      };
      await delivery('dlv_done', 'evt_a', at(1), 'succeeded', 1, null);
      await delivery('dlv_b', 'evt_b', at(2), 'pending', 2, at(8));
      await delivery('dlv_c', 'evt_c', at(3), 'pending', 0, at(3));
      await delivery('dlv_resend', 'evt_a', at(5), 'pending', 0, at(5));
      expect(await migrateToLatest(db.kysely, db.dialect)).toContain('0015_ordered_deliveries');
      const rows = await db.kysely.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      expect(byId.dlv_b).toMatchObject({ in_order: 1, next_attempt_at: expect.anything() });
      expect(byId.dlv_c).toMatchObject({ in_order: 1, next_attempt_at: null });
      expect(byId.dlv_resend).toMatchObject({ in_order: 0, next_attempt_at: expect.anything() });
      expect(byId.dlv_done.in_order).toBe(1);
      expect(byId.dlv_b.first_attempt_at).not.toBeNull();
      for (const r of rows) expect(JSON.parse(r.resource)).toEqual(toDeliveryResource(r));
      expect(byId.dlv_c.resource).toBe(JSON.stringify(toDeliveryResource(byId.dlv_c)));
    } finally {
      await drop();
    }
  });

  it('count each tenant’s webhook endpoints and give each seed run’s accounts their tenant (0035)', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      const migrator = await migratorFor(db.kysely, db.dialect);
      expect((await migrator.migrateTo('0033_list_changes')).error).toBeUndefined();
      const at = '2026-01-02T03:04:05.000Z';
      for (const id of ['ten_1', 'ten_2']) await sql`insert into tenants (id, name, created_at) values (${id}, ${id}, ${at})`.execute(db.kysely);
      for (const id of ['we_1', 'we_2'])
        await sql`insert into webhook_endpoints (id, tenant_id, url, enabled_events, enabled, secret, consecutive_failures, created_at, updated_at, resource)
          values (${id}, 'ten_1', 'https://x.example', '["*"]', 1, 's', 0, ${at}, ${at}, '{}')`.execute(db.kysely);
      await sql`insert into seed_runs (id, tenant_id, seed, accounts, payments, until, accounts_before, payments_before, accounts_done, payments_done, started_at, updated_at)
        values ('run_1', 'ten_2', 's', 1, 1, ${at}, 0, 0, 0, 0, ${at}, ${at})`.execute(db.kysely);
      await sql`insert into seed_run_accounts (run_id, position, account_id, currency) values ('run_1', 0, 'acc_1', 'EUR')`.execute(db.kysely);
      expect(await migrateToLatest(db.kysely, db.dialect)).toEqual(['0035_tenant_pinned_sweeps', '0036_coarser_counter_levels']);
      const tenants = await db.kysely.selectFrom('tenants').select(['id', 'webhook_endpoints']).orderBy('id').execute();
      expect(tenants.map((t) => [t.id, Number(t.webhook_endpoints)])).toEqual([
        ['ten_1', 2],
        ['ten_2', 0],
      ]);
      expect(await db.kysely.selectFrom('seed_run_accounts').select(['tenant_id', 'run_id']).execute()).toEqual([{ tenant_id: 'ten_2', run_id: 'run_1' }]);
    } finally {
      await drop();
    }
  });
});
