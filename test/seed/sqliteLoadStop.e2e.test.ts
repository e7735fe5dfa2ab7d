import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { seedTenant } from '../../src/seed/seedTenant.ts';
import { countsVersusRebuild, totals } from '../support/seedChecks.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';

/**
 * A stop signal during a SQLite load's index builds (node:sqlite runs each CREATE INDEX
 * synchronously on the seed's worker thread, for minutes at 10M rows): the process ends
 * promptly and the database is as it was and opens. Large enough that the index builds take
 * seconds; on a database no other connection has open, so the load goes through a rollback
 * journal (sqliteLoadJournal.ts), or with one open, through the WAL.
 */

const PAYMENTS = 250_000;

/** Everything in the file a load may change: the schema, every table's row count, and whether it is sound. */
function stateOf(file: string) {
  const database = new DatabaseSync(file);
  try {
    const schema = database.prepare('select type, name, sql from sqlite_master order by name').all() as { type: string; name: string }[];
    const rows = Object.fromEntries(
      schema.filter((s) => s.type === 'table').map((s) => [s.name, (database.prepare(`select count(*) as n from "${s.name}"`).get() as { n: number }).n]),
    );
    const integrity = (database.prepare('pragma integrity_check').get() as { integrity_check: string }).integrity_check;
    return { schema, rows, integrity };
  } finally {
    database.close();
  }
}

/** `cli seed` of `payments` payments into `file`. */
function seedCli(file: string, payments: number) {
  return spawn(process.execPath, ['src/cli/main.ts', 'seed', '--tenant', 'big', '--accounts', '100', '--payments', String(payments), '--seed', 'b'], {
    env: { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', CARD_FINGERPRINT_SECRET: 'seed-test-secret' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** `cli seed` of PAYMENTS payments into `file`, signalled as it begins building payments' indexes. */
async function stopDuringIndexBuilds(file: string, signals: NodeJS.Signals[]) {
  const child = seedCli(file, PAYMENTS);
  let stderr = '';
  let signalled = 0;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: number }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal, afterMs: performance.now() - signalled })),
  );
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (!signalled && stderr.includes("building payments' indexes")) {
      signalled = performance.now();
      // Apart: two of the same signal sent at once may arrive as one.
      signals.forEach((signal, i) => setTimeout(() => child.kill(signal), i * 200));
    }
  });
  const result = await exited;
  return { ...result, stderr, signalled: signalled > 0 };
}

describe.runIf(TEST_DIALECT === 'sqlite')('SQLite: a stop signal during a load’s index builds', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A migrated database file with one tenant's accounts and no payments, and what it holds. */
  async function startingFile() {
    dir = mkdtempSync(join(tmpdir(), 'payments-stop-'));
    const file = join(dir, 'load.sqlite');
    const db = openDatabase(`sqlite:${file}`, { sqliteReaders: false });
    await migrateToLatest(db.kysely, db.dialect);
    const until = new Date('2026-11-01T00:00:00Z');
    await seedTenant(db, { tenant: 'start', seed: 's', accounts: 5, payments: 0, until, fingerprintSecret: 'seed-test-secret' });
    await db.close();
    return { file, before: stateOf(file) };
  }

  /** As it was, but for the run's row (committed before the load began), and it opens as the service opens it. */
  async function expectAsItWas(file: string, before: ReturnType<typeof stateOf>) {
    const after = stateOf(file);
    expect(after.integrity).toBe('ok');
    expect(after.schema).toEqual(before.schema);
    expect(after.rows).toEqual({ ...before.rows, seed_runs: before.rows.seed_runs + 1, tenants: before.rows.tenants + 1 });
    const db = openDatabase(`sqlite:${file}`, { sqliteReaders: false });
    try {
      expect((db.native.dialect === 'sqlite' && db.native.database.prepare('pragma journal_mode').get()) || undefined).toEqual({ journal_mode: 'wal' });
      expect(await db.kysely.selectFrom('payments').select('id').limit(1).execute()).toEqual([]);
    } finally {
      await db.close();
    }
  }

  it('with no other connection open, a load goes through a rollback journal: the rows whole, counts exact, the file back in WAL', async () => {
    const { file } = await startingFile();
    const child = seedCli(file, 20_000);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((done) => child.on('exit', done))).toBe(0);
    expect(stderr).toContain('SQLite through a rollback journal');
    const db = openDatabase(`sqlite:${file}`, { sqliteReaders: false });
    try {
      expect(await totals(db, 'big')).toEqual({ accounts: 100, payments: 20_000 });
      const { kept, rebuilt } = await countsVersusRebuild(db, 'big');
      expect(kept).toEqual(rebuilt);
      expect(kept.buckets.length).toBeGreaterThan(100);
      expect(db.native.dialect === 'sqlite' && db.native.database.prepare('pragma integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      await db.close();
    }
  }, 300_000);

  it('SIGTERM: the process ends within seconds and the database is as it was (a rollback journal: no other connection)', async () => {
    const { file, before } = await startingFile();
    const stopped = await stopDuringIndexBuilds(file, ['SIGTERM']);
    expect(stopped.signalled).toBe(true);
    expect(stopped.stderr).not.toContain('seeded 100 accounts');
    // Rolled back between two index builds (exit 130), or ended by the signal during one.
    expect(stopped.code === 130 || stopped.signal === 'SIGTERM').toBe(true);
    expect(stopped.afterMs).toBeLessThan(5_000);
    await expectAsItWas(file, before);
  }, 300_000);

  it('SIGINT twice: the process ends at once, mid CREATE INDEX, and the database is as it was', async () => {
    const { file, before } = await startingFile();
    const stopped = await stopDuringIndexBuilds(file, ['SIGINT', 'SIGINT']);
    expect(stopped).toMatchObject({ signalled: true, code: null, signal: 'SIGINT' });
    expect(stopped.afterMs).toBeLessThan(5_000);
    await expectAsItWas(file, before);
  }, 300_000);

  it('SIGTERM through the WAL (another connection open): the process ends within seconds, the database as it was', async () => {
    const { file, before } = await startingFile();
    const other = new DatabaseSync(file);
    other.exec('pragma journal_mode = wal');
    try {
      const stopped = await stopDuringIndexBuilds(file, ['SIGTERM']);
      expect(stopped.signalled).toBe(true);
      expect(stopped.code === 130 || stopped.signal === 'SIGTERM').toBe(true);
      expect(stopped.afterMs).toBeLessThan(5_000);
    } finally {
      other.close();
    }
    await expectAsItWas(file, before);
  }, 300_000);
});
