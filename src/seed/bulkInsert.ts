import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db } from '../db/database.ts';
import type { AccountTable, Database, MetadataEntryTable } from '../db/schema.ts';
import { CARRIED_COLUMNS, carriedOf, metadataEntryRows, type Carried, METADATA_ENTRY_TABLE, ValueCountTally, type ValueCountRow } from '../lists/index.ts';
import type { CountRow, BucketRow } from '../lists/index.ts';
import type { SeedPayment } from './seedRows.ts';
import { DeferredForeignKeys } from './deferredForeignKeys.ts';

const ACCOUNT_COLUMNS = [
  'id',
  'tenant_id',
  'name',
  'email',
  'currency',
  'status',
  'metadata',
  'created_at',
  'updated_at',
  'resource',
  'name_folded',
  'email_folded',
] as const;
const PAYMENT_COLUMNS = [
  'id',
  'tenant_id',
  'account_id',
  'amount',
  'currency',
  'status',
  'amount_refunded',
  'refund_reason',
  'method',
  'card_brand',
  'card_last4',
  'card_exp_month',
  'card_exp_year',
  'card_fingerprint',
  'description',
  'reference',
  'failure_code',
  'failure_message',
  'metadata',
  'captured_at',
  'created_at',
  'updated_at',
  'resource',
] as const;

/** A list's entry columns: the key's, then what its entries carry of their record (migration 0030). */
const ENTRY_COLUMNS = {
  accounts: ['tenant_id', 'key', 'value', 'created_at', 'record_id', ...CARRIED_COLUMNS.accounts],
  payments: ['tenant_id', 'key', 'value', 'created_at', 'record_id', ...CARRIED_COLUMNS.payments],
} as const;

/** An entry row as gathered, with its record's status (which its value count is kept under: migration 0024), not a column of it. */
type StatusedEntry = MetadataEntryTable & Carried & { status: string };
const statusOf = (entry: StatusedEntry) => entry.status;
const BUCKET_COLUMNS = ['tenant_id', 'list', 'sort_key', 'level', 'account_id', 'status', 'currency', 'card_brand', 'bucket', 'shard', 'n'] as const;

/**
 * SQLite's page cache during a load, in KiB (its peak adds at most this much to the process's
 * RSS). 1M payments (a 2.5 GB database): 1 GiB took 13–16 % less CPU than 256 MB on a loaded
 * machine, in the rows (fewer dirty pages spilled to the WAL and read back) and in the 13 CREATE
 * INDEX, each of which reads the whole table again; ~3 % of the wall time on an idle one
 * (docs/performance.md, "Seeding").
 */
export const SQLITE_LOAD_CACHE_KIB = 1024 * 1024;

/**
 * SQLite's helper threads for sorting during a load (`pragma threads`): CREATE INDEX sorts its
 * keys in as many more threads, so a load's 13 index builds use both cores of this machine.
 */
export const SQLITE_LOAD_THREADS = 2;

/** Count rows go in statements of at most this many (a batch adds to ~100k bucket rows). */
const UPSERT_CHUNK = 10_000;

type Value = string | number | null;

/** Both tables' metadata travel as JSON text (PostgreSQL reads it into jsonb). */
function plain(value: unknown): Value {
  return value === null || typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value);
}

function valuesOf<T extends object>(row: T, columns: readonly (keyof T)[]): Value[] {
  const out: Value[] = new Array(columns.length);
  for (let i = 0; i < columns.length; i++) out[i] = plain(row[columns[i]]);
  return out;
}

/**
 * The rows, passed on one by one, with the metadata search entries of each (migration 0016)
 * gathered into `entries` on the way (seeded metadata is JSON text; most of it `{}`).
 */
function* gatheringEntries<R extends { tenant_id: string; id: string; created_at: string; status: string; metadata: unknown } & Carried>(
  list: keyof typeof METADATA_ENTRY_TABLE,
  rows: Iterable<R>,
  entries: StatusedEntry[],
): Generator<R> {
  for (const row of rows) {
    if (row.metadata !== '{}') {
      const metadata = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
      const carried = carriedOf(list, row);
      for (const entry of metadataEntryRows(row.tenant_id, row, metadata as Record<string, string>, carried)) entries.push({ ...entry, status: row.status });
    }
    yield row;
  }
}

/** Count rows handed on as they go by, noting their shard (`seen`: 0 until one has): the shard of the value counts that follow them. */
function shardOf(counts: Iterable<CountRow>): { rows: Iterable<CountRow>; seen: number } {
  const noted = { seen: 0, rows: [] as Iterable<CountRow> };
  noted.rows = (function* () {
    for (const row of counts) {
      noted.seen = row.shard;
      yield row;
    }
  })();
  return noted;
}

function* chunks<T>(rows: Iterable<T>, size: number): Generator<T[]> {
  let chunk: T[] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** Where a batch's rows go, inside the batch's transaction; rows are consumed one by one, never all held. */
export interface RowSink {
  accounts(rows: Iterable<AccountTable>): Promise<void>;
  payments(rows: Iterable<SeedPayment>): Promise<void>;
  /**
   * Adds to list_counts, then list_buckets, rows merged and in the global order every writer locks
   * them in. `newBuckets`: the tenant has no list_buckets rows and none can appear before commit, so
   * PostgreSQL COPYs them rather than upserting (decision 0018). Then the metadata value counts of the
   * entries written since the last adjust (ValueCountTally), in the shard of `counts`.
   */
  adjust(counts: Iterable<CountRow>, buckets: Iterable<BucketRow>, newBuckets?: boolean): Promise<void>;
  /**
   * Adds to list_counts, then to list_buckets, as `adjust` does (upserts, in the global order),
   * but not the metadata value counts: part of a load's counts written out before its end
   * (seedInOneTransaction.ts), rows only payment writers touch, which the load holds back.
   */
  addCounts(counts: Iterable<CountRow>, buckets: Iterable<BucketRow>): Promise<void>;
}

export interface BatchOptions {
  /**
   * PostgreSQL: the sink's rows skip their foreign-key triggers where they may, the values
   * they reference looked up once each instead (deferredForeignKeys.ts). For a load in one
   * transaction, whose millions of rows reference a few thousand values. The tenant whose rows
   * they are: a value in a tenant's table is looked up in that tenant's rows.
   */
  deferForeignKeys?: { tenantId: string };
}

/** Runs the batches of a bulk load, each one transaction. */
export interface BulkInserter {
  /** How many batches may run at once, each in its own transaction (on its own connection). */
  readonly lanes: number;
  /** Runs `work` in a transaction on a free lane (waiting for one), committing when it returns. */
  batch<T>(work: (trx: Transaction<Database>, sink: RowSink) => Promise<T>, options?: BatchOptions): Promise<T>;
  /** Closes what the inserter opened (statements, connections), not the database. */
  close(): Promise<void>;
}

export async function openBulkInserter(db: Db): Promise<BulkInserter> {
  return db.native.dialect === 'sqlite' ? sqliteInserter(db) : postgresInserter(db.native.pool);
}

/**
 * SQLite: one prepared statement per table, run row by row on the driver's own handle (count
 * rows too: a batch's many multi-row upserts would each compile anew). Only inside a Kysely
 * transaction: that holds the one connection, so every row lands in that transaction and no
 * other statement runs on the connection meanwhile. One lane: SQLite has one writer.
 */
function sqliteInserter(db: Db): BulkInserter {
  if (db.native.dialect !== 'sqlite') throw new Error('not SQLite');
  const database = db.native.database;
  // SQLite's default page cache is 2 MB: a load's index pages (13 indexes on payments, and
  // list_buckets) were read back from the OS at every row, most of the load's time (measured:
  // 200k payments 3× faster in wall time, a tenth of the system time). The connection's own
  // cache, for the load only; the previous size comes back on close.
  const cacheBefore = (database.prepare('pragma cache_size').get() as { cache_size: number }).cache_size;
  const threadsBefore = (database.prepare('pragma threads').get() as { threads: number }).threads;
  database.exec(`pragma cache_size = -${SQLITE_LOAD_CACHE_KIB}`);
  database.exec(`pragma threads = ${SQLITE_LOAD_THREADS}`);
  const insert = (table: string, columns: readonly string[]) =>
    database.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
  const accounts = insert('accounts', ACCOUNT_COLUMNS);
  const payments = insert('payments', PAYMENT_COLUMNS);
  const accountEntries = insert(METADATA_ENTRY_TABLE.accounts, ENTRY_COLUMNS.accounts);
  const paymentEntries = insert(METADATA_ENTRY_TABLE.payments, ENTRY_COLUMNS.payments);
  const values = new ValueCountTally();
  const addEntries = (list: keyof typeof METADATA_ENTRY_TABLE, entries: StatusedEntry[]) => {
    const statement = list === 'accounts' ? accountEntries : paymentEntries;
    for (const entry of entries) statement.run(...valuesOf(entry, ENTRY_COLUMNS[list]));
    values.add(list, entries, statusOf);
  };
  const addCount = database.prepare(
    `insert into list_counts (tenant_id, list, account_id, status, currency, card_brand, shard, n) values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (tenant_id, list, account_id, status, currency, card_brand, shard) do update set n = list_counts.n + excluded.n`,
  );
  const addBucket = database.prepare(
    `insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, shard, n) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, shard) do update set n = list_buckets.n + excluded.n`,
  );
  const addValueCount = database.prepare(
    `insert into metadata_value_counts (tenant_id, list, key, value, status, shard, n) values (?, ?, ?, ?, ?, ?, ?)
     on conflict (tenant_id, list, key, value, status, shard) do update set n = metadata_value_counts.n + excluded.n`,
  );
  const sink: RowSink = {
    async accounts(rows) {
      const entries: StatusedEntry[] = [];
      for (const row of gatheringEntries('accounts', rows, entries)) accounts.run(...valuesOf(row, ACCOUNT_COLUMNS));
      addEntries('accounts', entries);
    },
    async payments(rows) {
      const entries: StatusedEntry[] = [];
      for (const row of gatheringEntries('payments', rows, entries)) payments.run(...valuesOf(row, PAYMENT_COLUMNS));
      addEntries('payments', entries);
    },
    async adjust(counts, buckets) {
      const shard = shardOf(counts);
      await sink.addCounts(shard.rows, buckets);
      for (const r of values.take(shard.seen)) addValueCount.run(r.tenant_id, r.list, r.key, r.value, r.status, r.shard, r.n);
    },
    async addCounts(counts, buckets) {
      for (const r of counts) addCount.run(r.tenant_id, r.list, r.account_id, r.status, r.currency, r.card_brand, r.shard, r.n);
      for (const r of buckets)
        addBucket.run(r.tenant_id, r.list, r.sort_key, r.level, r.account_id, r.status, r.currency, r.card_brand, r.bucket, r.shard, r.n);
    },
  };
  return {
    lanes: 1,
    batch: (work) => {
      // Nothing carried over from a batch that rolled back.
      values.take(0);
      return db.kysely.transaction().execute((trx) => work(trx, sink));
    },
    async close() {
      database.exec(`pragma cache_size = ${cacheBefore}`);
      database.exec(`pragma threads = ${threadsBefore}`);
    },
  };
}

const COPY_SPECIAL = /[\\\n\r\t]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A value in COPY's text format: `\N` for null, the four special characters escaped. */
function copyText(value: Value): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return COPY_SPECIAL.test(value) ? value.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]) : value;
}

/** Lines of COPY text, handed on in chunks of about 64 KiB. */
function* copyChunks<T extends object>(rows: Iterable<T>, columns: readonly (keyof T)[]): Generator<string> {
  let chunk = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) line += (i === 0 ? '' : '\t') + copyText(plain(row[columns[i]]));
    chunk += `${line}\n`;
    if (chunk.length > 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

const column = <R, K extends keyof R>(rows: R[], key: K) => rows.map((r) => r[key]);

/** How a lane writes rows into a table: as given, or around deferred foreign keys (DeferredForeignKeys.around). */
type Writing = <R extends object>(table: string, rows: Iterable<R>, write: (rows: Iterable<R>) => Promise<void>) => Promise<void>;

const asGiven: Writing = (_table, rows, write) => write(rows);

/** PostgreSQL: count rows as upserts of arrays, in chunks, keeping the rows' order; bucket rows known to be new by `copyNew`. */
async function upsertCounts(
  trx: Transaction<Database>,
  counts: Iterable<CountRow>,
  buckets: Iterable<BucketRow>,
  copyNew: ((rows: Iterable<BucketRow>) => Promise<void>) | undefined,
  writing: Writing = asGiven,
): Promise<void> {
  await writing('list_counts', counts, (noted) => upsertCountRows(trx, noted));
  if (copyNew) return copyNew(buckets);
  await writing('list_buckets', buckets, (noted) => upsertBucketRows(trx, noted));
}

async function upsertCountRows(trx: Transaction<Database>, counts: Iterable<CountRow>): Promise<void> {
  for (const rows of chunks(counts, UPSERT_CHUNK)) {
    await sql`insert into list_counts (tenant_id, list, account_id, status, currency, card_brand, shard, n)
      select * from unnest(${column(rows, 'tenant_id')}::text[], ${column(rows, 'list')}::text[], ${column(rows, 'account_id')}::text[],
        ${column(rows, 'status')}::text[], ${column(rows, 'currency')}::text[], ${column(rows, 'card_brand')}::text[],
        ${column(rows, 'shard')}::smallint[], ${column(rows, 'n')}::bigint[])
      on conflict (tenant_id, list, account_id, status, currency, card_brand, shard) do update set n = list_counts.n + excluded.n`.execute(trx);
  }
}

async function upsertBucketRows(trx: Transaction<Database>, buckets: Iterable<BucketRow>): Promise<void> {
  for (const rows of chunks(buckets, UPSERT_CHUNK)) {
    await sql`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, shard, n)
      select * from unnest(${column(rows, 'tenant_id')}::text[], ${column(rows, 'list')}::text[], ${column(rows, 'sort_key')}::text[],
        ${column(rows, 'level')}::integer[], ${column(rows, 'account_id')}::text[], ${column(rows, 'status')}::text[],
        ${column(rows, 'currency')}::text[], ${column(rows, 'card_brand')}::text[],
        ${column(rows, 'bucket')}::bigint[], ${column(rows, 'shard')}::smallint[], ${column(rows, 'n')}::bigint[])
      on conflict (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, shard) do update set n = list_buckets.n + excluded.n`.execute(
      trx,
    );
  }
}

/** PostgreSQL: metadata value count rows as one upsert of arrays (a seed's are few: one per key and value). */
async function upsertValueCounts(trx: Transaction<Database>, rows: ValueCountRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`insert into metadata_value_counts (tenant_id, list, key, value, status, shard, n)
    select * from unnest(${column(rows, 'tenant_id')}::text[], ${column(rows, 'list')}::text[], ${column(rows, 'key')}::text[],
      ${column(rows, 'value')}::text[], ${column(rows, 'status')}::text[], ${column(rows, 'shard')}::smallint[], ${column(rows, 'n')}::bigint[])
    on conflict (tenant_id, list, key, value, status, shard) do update set n = metadata_value_counts.n + excluded.n`.execute(trx);
}

/** One pooled client, with a Kysely of its own over it, so a batch's COPY and its statements are one transaction. */
async function postgresLane(pool: pg.Pool) {
  const client = await pool.connect();
  let broken: Error | undefined;
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: {
        connect: async () => ({ query: ((text: string, values: unknown[]) => client.query(text, values)) as never, release() {} }),
        end: async () => {},
      },
    }),
  });
  const copyAs =
    (writing: Writing) =>
    <T extends object>(table: string, rows: Iterable<T>, columns: readonly (keyof T)[]) =>
      writing(table, rows, (noted) =>
        pipeline(Readable.from(copyChunks(noted, columns)), client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`))),
      );
  const copyWithEntries = async <T extends { tenant_id: string; id: string; created_at: string; status: string; metadata: unknown }>(
    copy: ReturnType<typeof copyAs>,
    list: keyof typeof METADATA_ENTRY_TABLE,
    rows: Iterable<T>,
    columns: readonly (keyof T)[],
  ) => {
    const entries: StatusedEntry[] = [];
    await copy(list, gatheringEntries(list, rows, entries), columns);
    if (entries.length > 0) await copy(METADATA_ENTRY_TABLE[list], entries, ENTRY_COLUMNS[list]);
    values.add(list, entries, statusOf);
  };
  /** The current batch's (one batch at a time on a lane). */
  let values = new ValueCountTally();
  return {
    async batch<T>(work: (trx: Transaction<Database>, sink: RowSink) => Promise<T>, options?: BatchOptions): Promise<T> {
      values = new ValueCountTally();
      try {
        return await kysely.transaction().execute(async (trx) => {
          const deferred = options?.deferForeignKeys ? await DeferredForeignKeys.open(trx, options.deferForeignKeys.tenantId) : undefined;
          const writing: Writing = deferred ? (table, rows, write) => deferred.around(trx, table, rows, write) : asGiven;
          const copy = copyAs(writing);
          const result = await work(trx, {
            accounts: (rows) => copyWithEntries(copy, 'accounts', rows, ACCOUNT_COLUMNS),
            payments: (rows) => copyWithEntries(copy, 'payments', rows, PAYMENT_COLUMNS),
            adjust: async (counts, buckets, newBuckets) => {
              const shard = shardOf(counts);
              await upsertCounts(trx, shard.rows, buckets, newBuckets ? (rows) => copy('list_buckets', rows, BUCKET_COLUMNS) : undefined, writing);
              await upsertValueCounts(trx, values.take(shard.seen));
            },
            addCounts: (counts, buckets) => upsertCounts(trx, counts, buckets, undefined, writing),
          });
          // Before the commit: every value the rows referenced has been looked up and locked.
          await deferred?.check(trx);
          return result;
        });
      } catch (error) {
        // A failed COPY can leave the connection mid-protocol: the pool must not hand it out again.
        broken = error as Error;
        throw error;
      }
    },
    async close() {
      await kysely.destroy();
      client.release(broken);
    },
  };
}

/**
 * PostgreSQL: rows go by COPY FROM STDIN, streamed. Two lanes (connections): a batch's COPY,
 * which the server spends most of a batch on, runs while the one before it finishes, so both
 * cores work.
 */
async function postgresInserter(pool: pg.Pool): Promise<BulkInserter> {
  const lanes = [await postgresLane(pool)];
  if ((pool.options.max ?? 10) > 1) lanes.push(await postgresLane(pool));
  const free = [...lanes];
  const waiting: Array<() => void> = [];
  return {
    lanes: lanes.length,
    async batch(work, options) {
      while (free.length === 0) await new Promise<void>((wake) => waiting.push(wake));
      const lane = free.pop()!;
      try {
        return await lane.batch(work, options);
      } finally {
        free.push(lane);
        waiting.shift()?.();
      }
    },
    async close() {
      for (const lane of lanes) await lane.close();
    },
  };
}
