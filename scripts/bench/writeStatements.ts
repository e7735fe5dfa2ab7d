import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { DatabaseSync } from 'node:sqlite';
import type { Db } from '../../src/db/database.ts';
import type { Database } from '../../src/db/schema.ts';
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
    const db = { kysely, dialect } as unknown as Db;
    const card = { digits: '4242424242424242', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2031, cvc: '123' } as const;
    let paymentId = '';
    await runIdempotent(db, { tenantId, key, hash: 'capture' }, async (write) => {
      const row = await insertPayment(write, tenantId, {
        input: { account_id: account.id, amount: 1234, currency: account.currency, capture: true, card: { number: card.digits, exp_month: 12, exp_year: 2031, cvc: '123' } },
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
    return { statements, paymentInsert, unique: [paymentId, ...ids, key] };
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
  const m = /^(?:\/\* prepared \*\/ )?insert into "list_(?:counts|buckets)" \(([^)]*)\)/.exec(query.sql);
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
  const text = query.sql.replace(/^\/\* prepared \*\/ /, '');
  return text.replace(/\$(\d+)(::smallint\[\])?/g, (_, n, shardArray) => {
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
