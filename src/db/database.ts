import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database, Dialect } from './schema.ts';
import { nodeSqliteDialect, openSqlite } from './nodeSqliteDialect.ts';
import { sqlitePathOf } from '../config.ts';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenOptions {
  poolMax?: number;
  /** PostgreSQL schema to use (tests isolate themselves this way). */
  searchPath?: string;
}

const PG_TIMESTAMPTZ = 1184;
const PG_INT8 = 20;

/** `2026-05-01 12:00:00.12+00` (session time zone UTC) → `2026-05-01T12:00:00.120Z`. */
function timestamptzToIso(text: string): string {
  return new Date(text.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString();
}

function pgTypes() {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === PG_TIMESTAMPTZ) return timestamptzToIso;
      // Amounts are minor units well inside 2^53; counts likewise.
      if (oid === PG_INT8) return Number;
      return pg.types.getTypeParser(oid, format);
    },
  };
}

export function openDatabase(databaseUrl: string, options: OpenOptions = {}): Db {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const schemaOption = options.searchPath ? ` -c search_path=${options.searchPath}` : '';
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: options.poolMax ?? 10,
      options: `-c TimeZone=UTC${schemaOption}`,
      types: pgTypes(),
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return wrap(kysely, 'postgres');
  }
  const path = sqlitePathOf(databaseUrl);
  if (!path) throw new Error(`DATABASE_URL must be postgres://… or sqlite:<path>, got ${databaseUrl}`);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const kysely = new Kysely<Database>({ dialect: nodeSqliteDialect(openSqlite(path)) });
  return wrap(kysely, 'sqlite');
}

function wrap(kysely: Kysely<Database>, dialect: Dialect): Db {
  return {
    kysely,
    dialect,
    async ping() {
      try {
        await sql`select 1`.execute(kysely);
        return true;
      } catch {
        return false;
      }
    },
    close: () => kysely.destroy(),
  };
}
