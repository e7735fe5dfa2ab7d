import type { Config } from '../config/loadConfig.ts';
import { ConfigError } from '../config/configError.ts';
import { describeDatabase, postgresNames } from '../db/describeDatabase.ts';
import { isDatabaseUnavailable, NoWritableHost } from '../db/databaseErrors.ts';
import { MigrationFailed } from '../db/migrate.ts';
import { MissingSqliteFolder } from '../db/sqliteFolder.ts';
import { explainServerRefusal } from './serverRefusal.ts';

/** sysexits.h: a service (the database, the port) unavailable; the software failed. */
const EX_UNAVAILABLE = 69;
const EX_SOFTWARE = 70;
const EX_NOPERM = 77;
const EX_CONFIG = 78;
/** SQLite's SQLITE_NOTADB: the file is there and is something else. */
const SQLITE_NOTADB = 26;

/** Why the program cannot start, in one line that says what to do, and its exit code. */
export class StartupFailure extends Error {
  readonly exitCode: number;
  constructor(line: string, exitCode: number, cause?: unknown) {
    super(line, { cause });
    this.name = 'StartupFailure';
    this.exitCode = exitCode;
  }
}

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/**
 * The failures an operator meets when a setting or the surroundings are wrong, as a line each
 * (undefined for anything else: a bug keeps its stack). `config` may be missing when the
 * configuration itself failed.
 */
export function explainFailure(
  error: unknown,
  config: Pick<Config, 'databaseUrl' | 'port' | 'host'> | undefined,
): { line: string; exitCode: number } | undefined {
  if (error instanceof ConfigError) return { line: error.lines.map((l) => `configuration: ${l}`).join('\nerror: '), exitCode: error.exitCode };
  if (error instanceof StartupFailure) return { line: error.message, exitCode: error.exitCode };
  if (!config) return undefined;
  const database = describeDatabase(config.databaseUrl);
  const { user, database: name } = postgresNames(config.databaseUrl);
  if (error instanceof MigrationFailed) {
    return {
      line: `${error.message} (on ${database}): fix the cause (a database role allowed to create tables?), then run \`npm run --silent cli -- migrate\` again`,
      exitCode: EX_SOFTWARE,
    };
  }
  switch (codeOf(error)) {
    case '3D000':
      return { line: `database "${name}" does not exist on ${database}: create it (createdb ${name}) or correct the name in DATABASE_URL`, exitCode: 78 };
    case '28000':
      return {
        line: `PostgreSQL refused role "${user}" (${(error as Error).message}): create it (createuser ${user}) or correct the user in DATABASE_URL`,
        exitCode: 78,
      };
    case '28P01':
      return { line: `password authentication failed for user "${user}" on ${database}: correct the password in DATABASE_URL`, exitCode: 78 };
    case '42501':
      return {
        line: `role "${user}" lacks a privilege on ${database} (${(error as Error).message}): grant it, or use a role that owns the database`,
        exitCode: EX_NOPERM,
      };
  }
  if (error instanceof MissingSqliteFolder) {
    return {
      line: `${error.message} (DATABASE_URL=${config.databaseUrl}): create it (mkdir -p ${error.folder}) or correct the path; only the default ./data is created by itself`,
      exitCode: EX_CONFIG,
    };
  }
  if (codeOf(error) === 'ERR_SQLITE_ERROR' && (error as { errcode?: unknown }).errcode === SQLITE_NOTADB) {
    return {
      line: `${database} is not a SQLite database (${(error as Error).message}): correct the path in DATABASE_URL (a file that does not exist yet, in a folder that does, makes a new database)`,
      exitCode: EX_CONFIG,
    };
  }
  if (codeOf(error) === 'ERR_SQLITE_ERROR' && /unable to open|readonly|read-only/i.test((error as Error).message)) {
    return { line: `cannot open ${database} (${(error as Error).message}): check the path in DATABASE_URL and that its folder is writable`, exitCode: 73 };
  }
  if (error instanceof NoWritableHost) {
    return {
      line: `no host in DATABASE_URL takes writes (${error.refusals.map((r) => `${r.host} ${r.reason}`).join('; ')}): start the primary or promote a standby, or correct the hosts in DATABASE_URL; DB_CONNECT_RETRY_S sets how long to wait for one at start`,
      exitCode: EX_UNAVAILABLE,
    };
  }
  // Before "cannot reach": a server (or a pooler) that answered with an error is reachable.
  const refused = explainServerRefusal(error, database);
  if (refused) return refused;
  if (isDatabaseUnavailable(error)) {
    const why = codeOf(error) ?? (error as Error).message;
    return {
      line: `cannot reach ${database} (${String(why)}): start the database, or correct the host and port in DATABASE_URL; DB_CONNECT_RETRY_S sets how long to wait for it at start`,
      exitCode: EX_UNAVAILABLE,
    };
  }
  return undefined;
}
