import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFor } from '../../src/db/migrate.ts';
import { startPgBouncer } from '../../scripts/support/pgbouncer.ts';
import { createOwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';
import { TEST_PG_URL } from '../support/testDatabase.ts';
import { startRefusingPooler } from '../support/refusingPooler.ts';
import { startServer } from '../support/serverProcess.ts';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The real CLI, as an operator runs it, with only these settings; its output and exit code. */
function cli(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  const started = performance.now();
  return new Promise((done) => {
    // Killed before the test's own timeout: a server that does not exit must not outlive the test.
    const options = { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, timeout: 25_000, killSignal: 'SIGKILL' as const };
    execFile(process.execPath, ['src/cli/main.ts', ...args], options, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code) : 0, stdout, stderr, ms: performance.now() - started });
    });
  });
}

const folder = mkdtempSync(join(tmpdir(), 'startup-'));
const freshSqlite = () => `sqlite:${join(folder, `${randomBytes(4).toString('hex')}.sqlite`)}`;
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /);

describe('starting with bad settings: one line that says what is wrong and what to do', () => {
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('names every bad variable, its value and what is allowed, exit code 78, no stack', async () => {
    const out = await cli({ LOG_LEVEL: 'verbose', TRUST_PROXY: 'yes', PUBLIC_URL: 'notaurl', PG_POOL_MAX: 'abc', DATABASE_URL: freshSqlite() }, 'serve');
    expect(out.code).toBe(78);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines).toContain('error: configuration: LOG_LEVEL="verbose" is not valid: allowed is fatal, error, warn, info, debug, trace, silent');
    expect(lines.some((l) => l.startsWith('error: configuration: PUBLIC_URL="notaurl" is not valid: allowed is an http(s) URL'))).toBe(true);
    expect(lines.some((l) => l.startsWith('error: configuration: PG_POOL_MAX="abc" is not valid: allowed is a whole number from 1 to 1000'))).toBe(true);
    noStack(out.stderr);
  });

  it('never prints the password of a DATABASE_URL, valid or not', async () => {
    const bad = await cli({ DATABASE_URL: 'postgres://app:hunter2@db host:5432/x' }, 'migrate');
    expect(bad.code).toBe(78);
    expect(bad.stderr).toContain('DATABASE_URL="postgres://app:***@db host:5432/x"');
    const unreachable = await cli({ DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/x', DB_CONNECT_RETRY_S: '0' }, 'migrate');
    expect(`${bad.stderr}${bad.stdout}${unreachable.stderr}${unreachable.stdout}`).not.toContain('hunter2');
  });

  it('waits for an unreachable PostgreSQL as long as DB_CONNECT_RETRY_S says, then gives up with a hint (exit 69)', async () => {
    const out = await cli({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test', DB_CONNECT_RETRY_S: '2' }, 'migrate');
    expect(out.code).toBe(69);
    expect(out.stderr).toMatch(/waiting for PostgreSQL 127\.0\.0\.1:1\/test \(ECONNREFUSED\); retrying/);
    expect(out.stderr.trim().split('\n').at(-1)).toBe(
      'error: cannot reach PostgreSQL 127.0.0.1:1/test (ECONNREFUSED): start the database, or correct the host and port in DATABASE_URL; DB_CONNECT_RETRY_S sets how long to wait for it at start',
    );
    expect(out.ms).toBeGreaterThan(2000);
    noStack(out.stderr);
  });

  it("through Debian's PgBouncer: PG_POOLER=none is refused with what to set (78); PG_POOLER=transaction migrates and lists", async () => {
    const own = await createOwnPostgresDatabase('t_bouncer');
    const bouncer = await startPgBouncer({ poolMode: 'transaction' });
    try {
      const url = bouncer.through(own.superuserUrl);
      const refused = await cli({ DATABASE_URL: url, PG_POOLER: 'none' }, 'migrate');
      expect(refused.code).toBe(78);
      expect(refused.stderr).toMatch(/answered "unsupported startup parameter: \w+" \(SQLSTATE 08P01\): .*set PG_POOLER=transaction/);
      const migrated = await cli({ DATABASE_URL: url, PG_POOLER: 'transaction' }, 'migrate');
      expect(migrated.code).toBe(0);
      expect((await cli({ DATABASE_URL: url, PG_POOLER: 'transaction' }, 'tenants', 'list')).code).toBe(0);
    } finally {
      await bouncer.stop();
      await own.drop();
    }
  });

  it('with several hosts, names each one tried and why it was passed over (unreachable, read-only), after waiting; never the password (exit 69)', async () => {
    const own = await createOwnPostgresDatabase('ro_hosts');
    try {
      await own.admin(`alter database ${own.name} set default_transaction_read_only = on`);
      const { host } = new URL(own.url);
      const out = await cli({ DATABASE_URL: `postgres://${own.name}:hunter2@127.0.0.1:1,${host}/${own.name}`, DB_CONNECT_RETRY_S: '1' }, 'migrate');
      expect(out.code).toBe(69);
      expect(out.stderr).toContain(
        `waiting for PostgreSQL ${own.name} on 127.0.0.1:1 or ${host}, whichever takes writes (no writable host: 127.0.0.1:1 unreachable (ECONNREFUSED), ${host} read-only (a standby, or set read-only)); retrying`,
      );
      expect(out.stderr.trim().split('\n').at(-1)).toBe(
        `error: no host in DATABASE_URL takes writes (127.0.0.1:1 unreachable (ECONNREFUSED); ${host} read-only (a standby, or set read-only)): start the primary or promote a standby, or correct the hosts in DATABASE_URL; DB_CONNECT_RETRY_S sets how long to wait for one at start`,
      );
      expect(`${out.stderr}${out.stdout}`).not.toContain('hunter2');
      noStack(out.stderr);
    } finally {
      await own.drop();
    }
  });

  it('says a missing database or role is missing, and how to create it (exit 78), without waiting', async () => {
    const pgUrl = new URL(TEST_PG_URL);
    const database = await cli({ DATABASE_URL: `postgres://${pgUrl.username}@${pgUrl.host}/no_such_db_${randomBytes(3).toString('hex')}` }, 'migrate');
    expect(database.code).toBe(78);
    expect(database.stderr).toMatch(/^error: database "no_such_db_\w+" does not exist on PostgreSQL .*: create it \(createdb no_such_db_\w+\)/);
    const role = await cli({ DATABASE_URL: `postgres://no_such_role@${pgUrl.host}/test` }, 'tenants', 'list');
    expect(role.code).toBe(78);
    expect(role.stderr).toMatch(/^error: PostgreSQL refused role "no_such_role" .*: create it \(createuser no_such_role\)/);
    expect(role.ms).toBeLessThan(10_000);
  });

  it('says what a pooler answered when it refuses a startup parameter, not "cannot reach", without waiting (exit 78)', async () => {
    const pooler = await startRefusingPooler('08P01', 'unsupported startup parameter: options');
    try {
      const out = await cli({ DATABASE_URL: `postgres://app@127.0.0.1:${pooler.port}/payments` }, 'migrate');
      expect(out.code).toBe(78);
      expect(out.stderr).toBe(
        `error: PostgreSQL 127.0.0.1:${pooler.port}/payments answered "unsupported startup parameter: options" (SQLSTATE 08P01): a connection pooler (PgBouncer) refuses settings sent at connect: set PG_POOLER=transaction (or session, for a session pooler) and the service sends none, applying them in each transaction instead\n`,
      );
      expect(pooler.refused()).toBe(1);
    } finally {
      await pooler.close();
    }
  });

  it('says a server out of connections is out of connections, after waiting DB_CONNECT_RETRY_S for one (exit 69)', async () => {
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    const name = `t_noconn_${randomBytes(4).toString('hex')}`;
    try {
      await admin.query(`create role ${name} login connection limit 0`);
      const url = new URL(TEST_PG_URL);
      url.username = name;
      const out = await cli({ DATABASE_URL: url.toString(), DB_CONNECT_RETRY_S: '1' }, 'migrate');
      expect(out.code).toBe(69);
      expect(out.stderr).toMatch(/waiting for PostgreSQL .* \(53300 too many connections for role "t_noconn_\w+"\); retrying/);
      expect(out.stderr.trim().split('\n').at(-1)).toMatch(
        /^error: PostgreSQL \S+ answered "too many connections for role "t_noconn_\w+"" \(SQLSTATE 53300\): it has no connection to spare: raise its max_connections/,
      );
      expect(out.stderr).not.toContain('cannot reach');
      noStack(out.stderr);
    } finally {
      await admin.query(`drop role ${name}`);
      await admin.end();
    }
  });

  it('says that migrating failed, why, and what to do (exit 70)', async () => {
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    const name = `t_noddl_${randomBytes(4).toString('hex')}`;
    try {
      await admin.query(
        `create role ${name} login; create schema ${name}; revoke create on schema public from ${name}; grant usage on schema ${name} to ${name}`,
      );
      const url = new URL(TEST_PG_URL);
      url.username = name;
      url.searchParams.set('options', `-c search_path=${name}`);
      const out = await cli({ DATABASE_URL: url.toString() }, 'migrate');
      expect(out.code).toBe(70);
      expect(out.stderr).toMatch(
        /^error: migrating failed before any migration ran: permission denied for schema t_noddl_\w+ \(on PostgreSQL .*\): fix the cause .*run `npm run --silent cli -- migrate` again\n$/,
      );
    } finally {
      await admin.query(`drop schema ${name} cascade; drop owned by ${name}; drop role ${name}`);
      await admin.end();
    }
  });

  it('says the port is in use and what to do (exit 69)', async () => {
    const taken: Server = createServer();
    await new Promise<void>((ok) => taken.listen(0, '127.0.0.1', ok));
    const port = (taken.address() as { port: number }).port;
    try {
      const out = await cli({ DATABASE_URL: freshSqlite(), PORT: String(port) }, 'serve');
      expect(out.code).toBe(69);
      expect(out.stderr).toContain(`error: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to another port`);
      noStack(out.stderr);
    } finally {
      taken.close();
    }
  });

  it('with WORKERS=2, says the port is in use and exits (69), without restarting its workers', async () => {
    const taken: Server = createServer();
    await new Promise<void>((ok) => taken.listen(0, '127.0.0.1', ok));
    const port = (taken.address() as { port: number }).port;
    try {
      const out = await cli({ DATABASE_URL: freshSqlite(), PORT: String(port), WORKERS: '2' }, 'serve');
      expect(out.code).toBe(69);
      expect(out.stderr).toContain(`error: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to another port`);
      expect(out.stderr).not.toContain('starting another');
      noStack(out.stderr);
    } finally {
      taken.close();
    }
  });

  it('on PostgreSQL too, says the port is in use and exits (69), closing its connections', async () => {
    const own = await createOwnPostgresDatabase('t_listen');
    const taken: Server = createServer();
    await new Promise<void>((ok) => taken.listen(0, '127.0.0.1', ok));
    const port = (taken.address() as { port: number }).port;
    try {
      const out = await cli({ DATABASE_URL: own.url, PORT: String(port) }, 'serve');
      expect(out.code).toBe(69);
      expect(out.stderr).toBe(`error: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to another port\n`);
    } finally {
      taken.close();
      await own.drop();
    }
  });

  it.each(['sqlite', 'postgres'])('on %s, blames a HOST that does not resolve on HOST, not on the database (exit 69)', async (dialect) => {
    const own = dialect === 'postgres' ? await createOwnPostgresDatabase('t_host') : undefined;
    try {
      const out = await cli({ DATABASE_URL: own?.url ?? freshSqlite(), HOST: 'no-such-host.invalid' }, 'serve');
      expect(out.code).toBe(69);
      expect(out.stderr).toBe(
        'error: cannot listen on HOST=no-such-host.invalid: the name does not resolve (ENOTFOUND); correct HOST (an address of this machine, or 0.0.0.0 for every interface)\n',
      );
    } finally {
      await own?.drop();
    }
  });

  it('says a DATABASE_URL file that is not SQLite is not SQLite, in one line (exit 78)', async () => {
    const path = join(folder, 'notes.txt');
    writeFileSync(path, 'These are notes, not a database. '.repeat(20));
    const out = await cli({ DATABASE_URL: `sqlite:${path}` }, 'serve');
    expect(out.code).toBe(78);
    expect(out.stderr).toBe(
      `error: SQLite ${path} is not a SQLite database (file is not a database): correct the path in DATABASE_URL (a file that does not exist yet, in a folder that does, makes a new database)\n`,
    );
  });

  it('refuses a sqlite: path whose folder does not exist, naming the folder, and creates nothing (exit 78)', async () => {
    const missing = join(folder, 'typo', 'deeper');
    for (const command of ['serve', 'migrate', 'tenants list']) {
      const out = await cli({ DATABASE_URL: `sqlite:${join(missing, 'x.sqlite')}` }, ...command.split(' '));
      expect(out.code, out.stderr).toBe(78);
      expect(out.stderr).toBe(
        `error: the folder ${join(folder, 'typo')} does not exist (DATABASE_URL=sqlite:${join(missing, 'x.sqlite')}): create it (mkdir -p ${missing}) or correct the path; only the default ./data is created by itself\n`,
      );
      expect(existsSync(join(folder, 'typo'))).toBe(false);
    }
  });

  it('creates the default ./data folder by itself (zero setup), in the folder it starts in', async () => {
    const home = mkdtempSync(join(tmpdir(), 'startup-default-'));
    try {
      const out = await new Promise<Outcome>((done) => {
        execFile(
          process.execPath,
          [join(process.cwd(), 'src/cli/main.ts'), 'migrate'],
          { cwd: home, env: { PATH: process.env.PATH ?? '' } },
          (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr, ms: 0 }),
        );
      });
      expect(out.code, out.stderr).toBe(0);
      expect(existsSync(join(home, 'data', 'payments.sqlite'))).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses a PostgreSQL DATABASE_URL without a database name before connecting (exit 78)', async () => {
    // The role's name is its own database's: were the URL taken, the schema would land there
    // (as PostgreSQL's default), never in the shared server's maintenance database.
    const own = await createOwnPostgresDatabase('t_noname');
    try {
      const url = new URL(own.url);
      url.pathname = '';
      const out = await cli({ DATABASE_URL: url.toString() }, 'serve');
      expect(out.code).toBe(78);
      expect(out.stderr).toMatch(/^error: configuration: DATABASE_URL="postgres:\/\/[^"]+" is not valid: it names no database: add its name to the path .*\n$/);
      const client = new pg.Client({ connectionString: own.url });
      await client.connect();
      const { rows } = await client.query(`select to_regclass('kysely_migration') as migrated`);
      await client.end();
      expect(rows[0].migrated).toBeNull();
    } finally {
      await own.drop();
    }
  });

  it('migrates a new, empty database and says what it applied; then that it is up to date', async () => {
    const url = freshSqlite();
    const first = await cli({ DATABASE_URL: url }, 'migrate');
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(`applied: ${Object.keys(migrationsFor('sqlite')).join(', ')}\n`);
    expect((await cli({ DATABASE_URL: url }, 'migrate')).stderr).toBe('schema is up to date\n');
  });

  it('turns metrics off with METRICS=false, and names database, port, workers and features at start', async () => {
    const url = freshSqlite();
    await cli({ DATABASE_URL: url }, 'migrate');
    const server = await startServer({ DATABASE_URL: url, METRICS: 'false', LOG_LEVEL: 'info', LOG_FORMAT: 'json', TRUST_PROXY: 'yes' });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      const line = server
        .output()
        .split('\n')
        .find((l) => l.includes('"database"'));
      const logged = JSON.parse(line ?? '{}');
      expect(logged).toMatchObject({ database: `SQLite ${url.slice('sqlite:'.length)}`, workers: 1, features: expect.arrayContaining(['trust proxy']) });
      expect(logged.features).not.toContain('metrics');
      expect(logged.port).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
