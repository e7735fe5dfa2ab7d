import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { seed } from '../support/seedHelpers.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

/** After the listener closes, what is still in flight gets this long (SHUTDOWN_TIMEOUT_MS). */
const TIMEOUT_MS = 1_500;
/** What a slow machine may add to it: the pool closing, the process exiting, npm exiting after it. */
const MARGIN_MS = 5_000;

interface NpmStart {
  npm: ChildProcess;
  url: URL;
  /** The server's own process id, as its log lines give it (npm's child, not npm). */
  serverPid: number;
  output(): string;
  exit: Promise<number | null>;
}

/** `npm start`, the documented start command, as a service manager runs it. */
async function npmStart(env: Record<string, string>, pids: number[]): Promise<NpmStart> {
  const npm = spawn('npm', ['start'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', RATE_LIMIT_PER_KEY: '0', RATE_LIMIT_PER_IP: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += chunk));
  npm.stderr!.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((done) => npm.on('close', (code) => done(code)));
  // The start line (stdout) and a JSON log line with the server's pid may come in either order.
  for (const begun = performance.now(); !/Listening on http:\/\/[0-9.]+:[0-9]+/.test(output) || !/"pid":\d+/.test(output); await sleep(50)) {
    if (npm.exitCode !== null || performance.now() - begun > 30_000) throw new Error(`npm start did not start: ${output}`);
  }
  const url = new URL(/Listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(output)![1]);
  const serverPid = Number(/"pid":(\d+)/.exec(output)![1]);
  pids.push(serverPid);
  expect(serverPid).not.toBe(npm.pid);
  return { npm, url, serverPid, output: () => output, exit };
}

/** An export whose reader takes the headers and then reads nothing more: the server's writes back up. */
async function stalledExport(url: URL, key: string): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  socket.write(
    `GET /v3/payments/export HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nAccept: application/x-ndjson\r\nAccept-Encoding: identity\r\n\r\n`,
  );
  let head = '';
  await new Promise<void>((done, fail) => {
    socket.on('error', fail);
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        socket.pause();
        socket.removeAllListeners('data');
        done();
      }
    });
  });
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  socket.on('error', () => {}); // the server cuts it: expected
  return socket;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function refusesConnections(url: URL): Promise<boolean> {
  return new Promise((done) => {
    const probe = connect(Number(url.port), url.hostname);
    probe.on('connect', () => {
      probe.destroy();
      done(false);
    });
    probe.on('error', () => done(true));
  });
}

describe('stopping `npm start` (SIGTERM or SIGINT to the npm process)', () => {
  let database: TestDatabase;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Several MB of NDJSON: more than the socket buffers take in when the reader reads nothing.
    await seed(database.db, 'stop', 3, 20_000);
    key = await createApiKey(database.db.kysely, (await findOrCreateTenant(database.db.kysely, 'stop')).id, ['read']);
  }, 120_000);
  afterAll(() => database.drop());
  /** A server a failed test left behind (the failure this file guards against) is not left running. */
  const servers: number[] = [];
  afterEach(() => {
    for (const pid of servers.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  });

  it('idle: stops the server itself, closes the port and exits 0, logging "listening" once and "draining" before "closed"', async () => {
    const started = await npmStart(database.env, servers);
    const signalledAt = performance.now();
    started.npm.kill('SIGTERM');
    const code = await started.exit;
    await sleep(200);
    expect(isRunning(started.serverPid), started.output()).toBe(false);
    expect(performance.now() - signalledAt).toBeLessThan(MARGIN_MS);
    expect(code, started.output()).toBe(0);
    expect(await refusesConnections(started.url)).toBe(true);
    const lines = started.output().split('\n');
    expect(lines.filter((line) => /listening/i.test(line) && line.startsWith('{'))).toHaveLength(1);
    // In the order the server logged them (its log lines' times): npm's own output shares the pipe.
    const logged = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string; time: number });
    const draining = logged.find((line) => line.msg.startsWith('draining'));
    const closed = logged.find((line) => line.msg === 'closed');
    expect(draining, started.output()).toBeDefined();
    expect(closed?.time, started.output()).toBeGreaterThanOrEqual(draining?.time ?? Number.POSITIVE_INFINITY);
  }, 60_000);

  it('with an export to a reader that stalls: cuts it at SHUTDOWN_TIMEOUT_MS, names it in one line and exits non-zero', async () => {
    const started = await npmStart({ ...database.env, SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS) }, servers);
    const reader = await stalledExport(started.url, key);
    const readerClosed = new Promise<void>((done) => reader.on('close', () => done()));
    const signalledAt = performance.now();
    started.npm.kill('SIGTERM');
    const code = await started.exit;
    const took = performance.now() - signalledAt;
    await sleep(200);
    expect(isRunning(started.serverPid), started.output()).toBe(false);
    expect(await refusesConnections(started.url)).toBe(true);
    expect(took, started.output()).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(took, started.output()).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(code, started.output()).not.toBe(0);
    const cut = started
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"shutdown timeout'));
    expect(cut, started.output()).toHaveLength(1);
    expect(cut[0]).toContain('GET /v3/payments/export');
    expect(cut[0]).toContain('SHUTDOWN_TIMEOUT_MS');
    // The export's connection was ended, not left open: what it holds read, it closes.
    reader.resume();
    await readerClosed;
  }, 60_000);

  it('a second signal, once the stop is under way, exits at once', async () => {
    const started = await npmStart({ ...database.env, SHUTDOWN_TIMEOUT_MS: '60000' }, servers);
    const reader = await stalledExport(started.url, key);
    started.npm.kill('SIGINT');
    for (const begun = performance.now(); !started.output().includes('"msg":"closing'); await sleep(50)) {
      if (performance.now() - begun > 10_000) throw new Error(`no stop under way: ${started.output()}`);
    }
    await sleep(1_200); // past the moment a signal delivered twice (npm and the terminal) is taken as one
    const secondAt = performance.now();
    started.npm.kill('SIGINT');
    const code = await started.exit;
    expect(performance.now() - secondAt, started.output()).toBeLessThan(MARGIN_MS);
    await sleep(200);
    expect(isRunning(started.serverPid), started.output()).toBe(false);
    expect(code).not.toBe(0);
    expect(started.output()).toMatch(/"msg":"second SIGINT: exiting at once[^"]*GET \/v3\/payments\/export/);
    reader.destroy();
  }, 60_000);
});
