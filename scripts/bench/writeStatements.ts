import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import { ChangeSignal } from '../../src/db/changeSignal.ts';
import pg from 'pg';
import { DatabaseSync } from 'node:sqlite';
import type { Db } from '../../src/db/database.ts';
import type { Database } from '../../src/db/schema.ts';
import { BUCKETED_SLICES, DIMENSIONS } from '../../src/lists/counters/countedSlices.ts';
import { nodeSqliteDialect, openSqlite } from '../../src/db/nodeSqliteDialect.ts';
import { runIdempotent } from '../../src/idempotency/runIdempotent.ts';
import { insertPayment } from '../../src/payments/paymentWrites.ts';
import { cardFingerprint } from '../../src/payments/cardFingerprint.ts';

/**
 * The statements the service runs for one payment create (its write transaction: the
 * Idempotency-Key's claim, the payment, its counts, buckets and events, the stored answer),
 * captured from Kysely's log by running the service's own write path once, on the bench's
 * scratch database. The statements are replayed without the service around them: by pgbench on
 * PostgreSQL and in a loop on one in-process connection on SQLite (writeFloors.ts), to say how
 * near the database's own rate the service writes.
 */
export interface CapturedCreate {
  /** Every statement of the transaction, in order (no begin and commit). */
  statements: CompiledQuery[];
  /** The payment insert alone: the "plain INSERT transaction" floor. */
  paymentInsert: CompiledQuery;
  /** Values that must differ on each replay (primary keys, the Idempotency-Key). */
  unique: string[];
  /**
   * The same transaction with the counted rows of before migration 0018 (issue 31): payments
   * counted by account and status only (4 slices, not 16) and bucketed in the whole list, by
   * status and by account (not by currency and card brand either): what the slices cost a write.
   */
  before0018: CompiledQuery[];
  /**
   * The same transaction without the bucket rows of the pairs of status, currency and card brand
   * (migration 0031, issue 31 item 1): what bucketing the pairs costs a write.
   */
  withoutPairs: CompiledQuery[];
  /** Count and bucket rows a create upserts, now, before migration 0018 and without the pairs' buckets. */
  rows: { now: { counts: number; buckets: number }; before0018: { counts: number; buckets: number }; withoutPairs: { counts: number; buckets: number } };
}

export async function captureCreate(dialect: 'sqlite' | 'postgres', url: string, tenantId: string, account: { id: string; currency: string }): Promise<CapturedCreate> {
  const statements: CompiledQuery[] = [];
  const log = (event: { level: string; query: CompiledQuery }) => {
    if (event.level === 'query') statements.push(event.query);
  };
  let kysely: Kysely<Database>;
  let close: () => Promise<void>;
  if (dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    close = () => kysely.destroy();
  } else {
    const sqlite: DatabaseSync = openSqlite(url.replace(/^sqlite:(\/\/)?/, ''));
    kysely = new Kysely<Database>({ dialect: nodeSqliteDialect(sqlite, { readers: false }), log });
    close = () => kysely.destroy();
  }
  const key = `bench-writes-capture-${Date.now()}`;
  try {
    const db = { kysely, dialect, listChanges: new ChangeSignal() } as unknown as Db;
    const card = { digits: '4242424242424242', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2031, cvc: '123' } as const;
    let paymentId = '';
    await runIdempotent(db, { tenantId, key, hash: 'capture' }, async (write) => {
      const row = await insertPayment(write, tenantId, {
        input: { account_id: account.id, amount: 1234, currency: account.currency, capture: true, card: { number: card.digits, exp_month: 12, exp_year: 2031, cvc: '123' }, metadata: { channel: 'web' } },
        card,
        fingerprint: cardFingerprint('bench', card.digits),
        outcome: { approved: true },
      });
      paymentId = row.id;
      return { status: 201, body: { data: row.id } };
    });
    // Ids the create made (the payment, its events, their deliveries): each a primary key.
    const ids = new Set(statements.flatMap((s) => s.parameters.filter((p): p is string => typeof p === 'string' && /^(evt|dlv)_[0-9A-Z]{26}$/.test(p))));
    const paymentInsert = statements.find((s) => /insert into "payments"/.test(s.sql));
    if (!paymentInsert) throw new Error('the captured create inserted no payment');
    const trimmed = statements.map((s) => withoutRows(s, dialect, (_, row) => isNewSlice(row)));
    const withoutPairs = statements.map((s) => withoutRows(s, dialect, (table, row) => table === 'list_buckets' && isPairSlice(row)));
    const rows = (list: CompiledQuery[]) => ({ counts: countedRowsIn(list, 'list_counts'), buckets: countedRowsIn(list, 'list_buckets') });
    return {
      statements,
      paymentInsert,
      unique: [paymentId, ...ids, key],
      before0018: trimmed,
      withoutPairs,
      rows: { now: rows(statements), before0018: rows(trimmed), withoutPairs: rows(withoutPairs) },
    };
  } finally {
    await close();
  }
}

/** A value as an SQL literal. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `array[${value.map(literal).join(', ')}]`;
  const text = String(value).replaceAll("'", "''");
  // pgbench reads `:name` anywhere, quotes or not: a colon goes in as an escape.
  return text.includes(':') ? `E'${text.replaceAll('\\', '\\\\').replaceAll(':', '\\x3a')}'` : `'${text}'`;
}

/** Index (in the row) of the `shard` column of a counted-rows upsert, and the row's width; undefined for other statements. */
function shardColumn(query: CompiledQuery): { index: number; width: number } | undefined {
  const m = /^insert into "list_(?:counts|buckets)" \(([^)]*)\)/.exec(query.sql);
  if (!m) return undefined;
  const columns = m[1].split(',').map((c) => c.trim().replaceAll('"', ''));
  return { index: columns.indexOf('shard'), width: columns.length };
}

/**
 * A statement as pgbench script text: parameters written in, each unique value made unique per
 * run with the script's `:u` variable, and the counter shard drawn per run (`:shard`), as the
 * service draws it (counterShard.ts).
 */
export function pgbenchText(query: CompiledQuery, unique: string[]): string {
  const shard = shardColumn(query);
  return query.sql.replace(/\$(\d+)(::smallint\[\])?/g, (_, n, shardArray) => {
    const i = Number(n) - 1;
    const value = query.parameters[i];
    // The shard column as one array (countedRows.ts): every element the run's shard.
    if (shardArray) return `array_fill(:shard::smallint, array[${(value as unknown[]).length}])`;
    if (shard && i % shard.width === shard.index) return ':shard::int';
    if (typeof value === 'string' && unique.includes(value)) return `(${literal(value)} || :u::text)`;
    return literal(value);
  });
}

/** The same statement's parameters for one in-process replay on SQLite, unique values suffixed with `suffix`. */
export function sqliteParameters(query: CompiledQuery, unique: string[], suffix: string): unknown[] {
  return query.parameters.map((value) => (typeof value === 'string' && unique.includes(value) ? `${value}${suffix}` : value)) as unknown[];
}

const COUNT_COLUMNS = ['list', 'account_id', 'status', 'currency', 'card_brand', 'shard', 'n'];
const BUCKET_COLUMNS = ['list', 'sort_key', 'level', 'account_id', 'status', 'currency', 'card_brand', 'bucket', 'shard', 'n'];
const ROW_COLUMNS = {
  list_counts: ['tenant_id', ...COUNT_COLUMNS],
  list_buckets: ['tenant_id', ...BUCKET_COLUMNS],
};

/** Whether a counted row (by its columns) lies in a slice narrowed by currency or card brand: one migration 0018 added. */
const isNewSlice = (row: Record<string, unknown>) => row.currency !== '' || row.card_brand !== '';

/** The bucketed slices of two dimensions: the pairs of status, currency and card brand (migration 0031). */
const PAIR_SLICES = BUCKETED_SLICES.filter((s) => s.dims.length === 2);

/** Whether a counted row (by its columns) lies in one of the pairs' slices: exactly the pair's dimensions narrowed. */
const isPairSlice = (row: Record<string, unknown>) => {
  const narrowed = DIMENSIONS.filter((d) => row[d] !== '');
  return PAIR_SLICES.some((s) => s.dims.length === narrowed.length && s.dims.every((d) => narrowed.includes(d)));
};

type CountedTable = 'list_counts' | 'list_buckets';

/**
 * The statement without the counted rows `drop` picks. PostgreSQL's counted rows go as one array
 * per column (lists/counters/countedRows.ts): the arrays are filtered. SQLite's as rows of placeholders
 * (listCounts.ts, listBuckets.ts): the rows are dropped and the text rebuilt.
 */
function withoutRows(query: CompiledQuery, dialect: 'sqlite' | 'postgres', drop: (table: CountedTable, row: Record<string, unknown>) => boolean): CompiledQuery {
  if (dialect === 'postgres') {
    if (!/insert into list_(counts|buckets)/.test(query.sql)) return query;
    const arrays = query.parameters.map((p, i) => [p, i] as const).filter(([p]) => Array.isArray(p));
    const groups: Array<{ table: CountedTable; columns: string[]; at: number[] }> = [];
    if (/insert into list_counts/.test(query.sql)) groups.push({ table: 'list_counts', columns: COUNT_COLUMNS, at: arrays.slice(0, 7).map(([, i]) => i) });
    const bucketsFrom = groups.length ? 7 : 0;
    if (/insert into list_buckets/.test(query.sql))
      groups.push({ table: 'list_buckets', columns: BUCKET_COLUMNS, at: arrays.slice(bucketsFrom, bucketsFrom + 10).map(([, i]) => i) });
    const parameters = [...query.parameters];
    for (const { table, columns, at } of groups) {
      const column = (name: string) => query.parameters[at[columns.indexOf(name)]] as unknown[];
      const rowAt = (r: number) => Object.fromEntries(['account_id', 'status', 'currency', 'card_brand'].map((c) => [c, column(c)[r]]));
      const keep = column('currency').map((_, r) => !drop(table, rowAt(r)));
      for (const i of at) parameters[i] = (query.parameters[i] as unknown[]).filter((_, r) => keep[r]);
    }
    return { ...query, parameters };
  }
  const table = /^insert into "(list_counts|list_buckets)"/.exec(query.sql)?.[1] as keyof typeof ROW_COLUMNS | undefined;
  if (!table) return query;
  const width = ROW_COLUMNS[table].length;
  const rows: unknown[][] = [];
  for (let i = 0; i < query.parameters.length; i += width) rows.push(query.parameters.slice(i, i + width) as unknown[]);
  const named = (row: unknown[]) => Object.fromEntries(ROW_COLUMNS[table].map((c, i) => [c, row[i]]));
  const kept = rows.filter((row) => !drop(table, named(row)));
  const placeholders = `(${Array(width).fill('?').join(', ')})`;
  const sql = query.sql.replace(/values \(.*\) on conflict/, `values ${kept.map(() => placeholders).join(', ')} on conflict`);
  return { ...query, sql, parameters: kept.flat() };
}

function countedRowsIn(statements: CompiledQuery[], table: 'list_counts' | 'list_buckets'): number {
  let n = 0;
  for (const s of statements) {
    if (!new RegExp(`insert into "?${table}"?`).test(s.sql)) continue;
    const arrays = s.parameters.filter((p) => Array.isArray(p)) as unknown[][];
    if (arrays.length > 0) {
      const first = table === 'list_counts' ? 0 : /insert into list_counts/.test(s.sql) ? 7 : 0;
      n += arrays[first].length;
    } else n += s.parameters.length / ROW_COLUMNS[table].length;
  }
  return n;
}
