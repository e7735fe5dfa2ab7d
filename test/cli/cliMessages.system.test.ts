import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';
import { startServer } from '../support/serverProcess.ts';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

const folder = mkdtempSync(join(tmpdir(), 'cli-messages-'));
const sqlite = `sqlite:${join(folder, 'cli.sqlite')}`;

/** The real CLI with only these settings (a database of this file's own by default). */
function cli(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  return new Promise((done) => {
    const options = { env: { PATH: process.env.PATH ?? '', DATABASE_URL: sqlite, LOG_LEVEL: 'warn', ...env }, timeout: 25_000, killSignal: 'SIGKILL' as const };
    execFile(process.execPath, ['src/cli/main.ts', ...args], options, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const version = JSON.parse(readFileSync('package.json', 'utf8')).version as string;

describe('the command line names the mistake and what to do instead', () => {
  beforeAll(async () => {
    expect((await cli({}, 'tenants', 'create', 'acme')).code).toBe(0);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('--version (and -v) prints the version', async () => {
    for (const flag of ['--version', '-v']) {
      const out = await cli({}, flag);
      expect(out).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it('an unknown option is named, with the valid ones, in one message of its own (exit 2)', async () => {
    const out = await cli({}, 'keys', 'list', '--tenent', 'acme');
    expect(out.code).toBe(2);
    const first = out.stderr.split('\n')[0];
    expect(first).toBe(
      'unknown option --tenent; the options are --tenant, --scopes, --accounts, --payments, --seed, --until, --batch-size, --batched, --expires, --grace, --help, --version',
    );
    expect(out.stderr).not.toContain('To specify a positional argument');
  });

  it('a negative count says it must be a whole number, 0 or more (exit 2)', async () => {
    for (const args of [['--accounts', '-5'], ['--accounts=-5']]) {
      const out = await cli({}, 'seed', '--tenant', 'acme', ...args, '--payments', '10');
      expect(out.code).toBe(2);
      expect(out.stderr).toBe('--accounts must be a whole number, 0 or more: got -5\n');
    }
  });

  it('`help` is a command too', async () => {
    const out = await cli({}, 'help');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Usage: npm run --silent cli -- <command> \[flags\]/);
  });

  it('an unknown scope is named, with the valid ones (exit 2)', async () => {
    const out = await cli({}, 'keys', 'create', '--tenant', 'acme', '--scopes', 'read,wrte');
    expect(out).toEqual({ code: 2, stdout: '', stderr: 'unknown scope wrte in --scopes read,wrte; the scopes are read, write\n' });
  });

  it('seed without counts is an error saying what to pass, not "seeded 0 accounts" (exit 2)', async () => {
    const out = await cli({}, 'seed', '--tenant', 'acme');
    expect(out.code).toBe(2);
    expect(out.stderr).toBe('seed adds nothing without counts: pass --accounts N and/or --payments M (payments go to the tenant’s accounts)\n');
  });

  it('PORT and HOST matter only to serve: a bad one does not stop a command that never listens', async () => {
    const listed = await cli({ PORT: 'abc' }, 'keys', 'list', '--tenant', 'acme');
    expect(listed.code, listed.stderr).toBe(0);
    const served = await cli({ PORT: 'abc' }, 'serve');
    expect(served.code).toBe(78);
    expect(served.stderr).toContain('PORT="abc" is not valid');
  });
});

describe('the command line on a PostgreSQL that does not answer', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Takes connections and never answers: a wrong port of another service, a host that drops packets.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });

  it('says within a second or two that it is waiting, for what and for how long, then gives up (exit 69)', async () => {
    const port = (silent.address() as { port: number }).port;
    const child = spawn(process.execPath, ['src/cli/main.ts', 'tenants', 'list'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`, DB_CONNECT_RETRY_S: '3', PG_CONNECT_TIMEOUT_MS: '4000' },
    });
    const started = performance.now();
    let stderr = '';
    const firstLine = new Promise<number>((seen) =>
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        seen(performance.now() - started);
      }),
    );
    const code = await new Promise<number | null>((exited) => child.on('close', exited));
    expect(await firstLine).toBeLessThan(3_000);
    expect(stderr.split('\n')[0]).toBe(
      `waiting for PostgreSQL 127.0.0.1:${port}/test (no answer yet); retrying for up to 3s (DB_CONNECT_RETRY_S), each attempt for up to 4s (PG_CONNECT_TIMEOUT_MS)`,
    );
    expect(code).toBe(69);
    expect(stderr.trim().split('\n').at(-1)).toMatch(/^error: cannot reach PostgreSQL 127\.0\.0\.1:\d+\/test \(/);
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 30_000);
});

describe('the start hint on PostgreSQL', () => {
  it('on an empty database, says to create a tenant first; once there is one, names it', async () => {
    const own = await createOwnPostgresDatabase('t_hint');
    try {
      const empty = await startServer({ DATABASE_URL: own.url, LOG_LEVEL: 'warn' });
      const hint = empty.output();
      await empty.stop();
      expect(hint).toContain(
        'Create a tenant, then an API key: npm run --silent cli -- tenants create <name>; npm run --silent cli -- keys create --tenant <name> --scopes read,write',
      );
      expect((await cli({ DATABASE_URL: own.url }, 'tenants', 'create', 'acme')).code).toBe(0);
      const one = await startServer({ DATABASE_URL: own.url, LOG_LEVEL: 'warn' });
      const named = one.output();
      await one.stop();
      expect(named).toContain('Create an API key with: npm run --silent cli -- keys create --tenant acme --scopes read,write');
    } finally {
      await own.drop();
    }
  }, 60_000);
});
