import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Db, type OpenOptions } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** Which database this test project runs on (vitest.config.ts sets it per project). */
export const TEST_DIALECT = (process.env.TEST_DB ?? 'sqlite') as 'sqlite' | 'postgres';
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/**
 * What stands between the tests and PostgreSQL: the `pgbouncer` project runs the PostgreSQL
 * suite through a transaction-pooling PgBouncer (TEST_DATABASE_URL is then the pooler's).
 */
export const TEST_PG_POOLER = (process.env.TEST_PG_POOLER ?? 'none') as 'none' | 'session' | 'transaction';
/** Schemas are made and dropped on the server itself: DDL needs no pooler. */
export const TEST_PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? TEST_PG_URL;

export interface TestDatabase {
  db: Db;
  /** The DATABASE_URL a child process (CLI, server) would use for the same data. */
  url: string;
  env: Record<string, string>;
  /** Another connection (pool) to the same data, with its own options (timeouts, pool size). */
  openAnother(options: Omit<OpenOptions, 'searchPath'>): Db;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: a temp SQLite file, or a new schema in the
 * PostgreSQL test database. PostgreSQL being unreachable fails the run: it never skips.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DIALECT === 'postgres') {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
    try {
      await admin.connect();
    } catch (error) {
      throw new Error(`PostgreSQL tests need ${TEST_PG_ADMIN_URL}: ${(error as Error).message}`);
    }
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const db = openDatabase(TEST_PG_URL, { searchPath: schema, poolMax: 5, pooler: TEST_PG_POOLER });
    await migrateToLatest(db.kysely, db.dialect);
    const url = `${TEST_PG_URL}${TEST_PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    return {
      db,
      url,
      env: { DATABASE_URL: url, PG_POOLER: TEST_PG_POOLER },
      openAnother: (options) => openDatabase(TEST_PG_URL, { pooler: TEST_PG_POOLER, ...options, searchPath: schema }),
      async drop() {
        await db.close();
        const cleanup = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
        await cleanup.connect();
        await cleanup.query(`drop schema ${schema} cascade`);
        await cleanup.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'payments-test-'));
  const url = `sqlite:${join(dir, 'test.sqlite')}`;
  const db = openDatabase(url);
  await migrateToLatest(db.kysely, db.dialect);
  return {
    db,
    url,
    env: { DATABASE_URL: url },
    openAnother: (options) => openDatabase(url, options),
    async drop() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
