import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { restoreDataset } from './restore.ts';

const run = promisify(execFile);
export const BENCH_TENANT = 'bench';

export type BenchDialect = 'sqlite' | 'postgres';

export interface Dataset {
  dialect: BenchDialect;
  payments: number;
  url: string;
  key: string;
}

const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function datasetUrl(dialect: BenchDialect, payments: number): string {
  if (dialect === 'sqlite') {
    mkdirSync(resolve('data/bench'), { recursive: true });
    return `sqlite:${resolve(`data/bench/payments-${payments}.sqlite`)}`;
  }
  return `${PG_BASE}?options=${encodeURIComponent(`-c search_path=bench_${payments}`)}`;
}

/** Runs `cli <args>` on a database, as an operator would (the bench and the soak build datasets so). */
export function cli(url: string, ...args: string[]) {
  return cliOf('.', url, ...args);
}

/** `cli <args>` of the checkout in `dir` (another build: `--against`). */
function cliOf(dir: string, url: string, ...args: string[]) {
  return run(process.execPath, [resolve(dir, 'src/cli/main.ts'), ...args], {
    cwd: dir,
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
    maxBuffer: 1 << 24,
  });
}

/** A dataset's accounts: one per thousand payments, 10 to 1,000. */
const accountsFor = (payments: number) => Math.max(10, Math.min(1000, Math.round(payments / 1000)));

/** The seed command's arguments for a dataset of `payments`: the same payments whichever build seeds them. */
function seedArgs(payments: number): string[] {
  const accounts = accountsFor(payments);
  // Nothing else writes to a dataset being built: large batches on SQLite too (its default keeps them short for live writers).
  return ['--tenant', BENCH_TENANT, '--accounts', String(accounts), '--payments', String(payments), '--seed', 'bench', '--batch-size', '100000'];
}

/** `cli <args>` with its stderr on ours: the seed command's progress (a bar on a terminal, lines otherwise). */
function cliShowingProgress(url: string, ...args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['src/cli/main.ts', ...args], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolvePromise() : reject(new Error(`cli ${args.join(' ')} failed (${signal ?? `exit code ${code}`})`))));
  });
}

/**
 * Builds a dataset through the seed command, or reuses it when it already holds exactly that
 * many payments. A seed that was interrupted (its run is recorded unfinished) is continued:
 * the same command picks it up from its last committed batch, or starts over a load in one
 * transaction (into a new dataset: seedTenant's default there), which left nothing behind.
 */
export async function ensureDataset(dialect: BenchDialect, payments: number, log: (line: string) => void): Promise<Dataset> {
  const url = datasetUrl(dialect, payments);
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: PG_BASE });
    await admin.connect();
    await admin.query(`create schema if not exists bench_${payments}`);
    await admin.end();
  }
  // The seed runs with this connection closed: a SQLite load into an empty file takes its rollback-journal path only
  // when no other connection has the file open (src/seed/sqliteLoadJournal.ts).
  let toSeed = false;
  const db = openDatabase(url);
  try {
    await migrateToLatest(db.kysely, db.dialect);
    // A run that died with its writer going leaves extra payments behind: remove them first.
    const restored = await restoreDataset(url, BENCH_TENANT, { always: false });
    if (restored?.deleted) log(`  removed ${restored.deleted} payments a previous run's writer left behind`);
    // The tenant's total: the sum of its count shards (migration 0008).
    const existing = await db.kysely
      .selectFrom('list_counts')
      .innerJoin('tenants', 'tenants.id', 'list_counts.tenant_id')
      .select(sql<number>`sum(n)`.as('n'))
      .where('tenants.name', '=', BENCH_TENANT)
      .where('list', '=', 'payments')
      .where('account_id', '=', '')
      .where('status', '=', '')
      .where('currency', '=', '')
      .where('card_brand', '=', '')
      .groupBy('tenant_id')
      .executeTakeFirst();
    if (Number(existing?.n ?? -1) !== payments) {
      const interrupted = await db.kysely
        .selectFrom('seed_runs')
        .innerJoin('tenants', 'tenants.id', 'seed_runs.tenant_id')
        .select('payments_done')
        .where('tenants.name', '=', BENCH_TENANT)
        .where('seed', '=', 'bench')
        .where('accounts', '=', accountsFor(payments))
        .where('payments', '=', payments)
        .where('finished_at', 'is', null)
        .executeTakeFirst();
      if (existing && !interrupted) throw new Error(`${url} holds ${existing.n} bench payments, not ${payments}; delete it to rebuild`);
      if (interrupted) log(`  continuing an interrupted seed (${Number(interrupted.payments_done).toLocaleString('en')} payments in)`);
      toSeed = true;
    } else {
      log(`  reusing ${payments.toLocaleString('en')} payments on ${dialect}`);
    }
  } finally {
    await db.close();
  }
  if (toSeed) {
    const started = performance.now();
    await cliShowingProgress(url, 'seed', ...seedArgs(payments));
    log(`  seeded ${payments.toLocaleString('en')} payments on ${dialect} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // The seed command vacuums and analyzes what it loaded on PostgreSQL (src/seed/loadedTableStatistics.ts).
  }
  const key = (await cli(url, 'keys', 'create', '--tenant', BENCH_TENANT, '--scopes', 'read')).stdout.trim();
  return { dialect, payments, url, key };
}

/** A key with scope write on the bench tenant, for the writer. */
export async function writeKey(ds: Dataset): Promise<string> {
  return (await cli(ds.url, 'keys', 'create', '--tenant', BENCH_TENANT, '--scopes', 'read,write')).stdout.trim();
}

/**
 * A dataset of the same payments (the same seed) built and served by another checkout, for
 * `--only floor --against`: a build whose layout differs (the counters of migrations 0033–0036)
 * cannot serve ours. Seeded once by that checkout's own `cli seed`, then reused (a marker file
 * says it finished); delete `data/bench/build-*` to rebuild.
 */
export async function datasetOfBuild(dir: string, dialect: BenchDialect, payments: number, log: (line: string) => void): Promise<Dataset> {
  const name = `build-${basename(resolve(dir)).replace(/[^a-z0-9]/gi, '_')}-payments-${payments}`;
  mkdirSync(resolve('data/bench'), { recursive: true });
  const done = resolve(`data/bench/${name}.${dialect}.seeded`);
  const schema = name.replace(/-/g, '_').toLowerCase();
  const file = resolve(`data/bench/${name}.sqlite`);
  const url = dialect === 'sqlite' ? `sqlite:${file}` : `${PG_BASE}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  if (!existsSync(done)) {
    if (dialect === 'sqlite') for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    else {
      const admin = new pg.Client({ connectionString: PG_BASE });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.query(`create schema ${schema}`);
      await admin.end();
    }
    const started = performance.now();
    await cliOf(dir, url, 'seed', ...seedArgs(payments));
    writeFileSync(done, new Date().toISOString());
    log(`  seeded ${payments.toLocaleString('en')} payments on ${dialect} with ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    log(`  reusing ${dir}'s ${payments.toLocaleString('en')} payments on ${dialect}`);
  }
  const key = (await cliOf(dir, url, 'keys', 'create', '--tenant', BENCH_TENANT, '--scopes', 'read')).stdout.trim();
  return { dialect, payments, url, key };
}
