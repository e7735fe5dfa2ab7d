// Runs once (unit project) on a SQLite file of its own: what it checks is the process model.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { send, type Call, type Outcome } from '../support/loadDriver.ts';
import { startServer } from '../support/serverProcess.ts';

describe('WORKERS=2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-workers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('forks two workers on one port, aggregates their metrics, and stops them all on SIGTERM', async () => {
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'w.sqlite')}`, WORKERS: '2', LOG_LEVEL: 'warn' });
    const workers = execFileSync('pgrep', ['-P', String(server.child.pid)])
      .toString()
      .trim()
      .split('\n');
    expect(workers).toHaveLength(2);
    // Fresh connections, so the primary hands them out to both workers.
    const health: Call = { method: 'GET', path: '/health', key: '' };
    for (let i = 0; i < 20; i++) expect((await send(server.url, health, new Agent())).status).toBe(200);
    const metrics = (await send(server.url, { method: 'GET', path: '/metrics', key: '' }, new Agent())).body!;
    // Each worker counts only its own requests; the total is right only if both were asked.
    expect(metrics).toContain('http_requests_total{method="GET",route="/health",status_class="2xx"} 20');
    expect(await server.stop()).toBe(0);
    for (const pid of workers) expect(() => process.kill(Number(pid), 0)).toThrow();
  }, 60_000);

  it('replaces a worker that dies', async () => {
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'w.sqlite')}`, WORKERS: '2', LOG_LEVEL: 'warn' });
    const [victim, survivor] = execFileSync('pgrep', ['-P', String(server.child.pid)])
      .toString()
      .trim()
      .split('\n');
    process.kill(Number(victim), 'SIGKILL');
    let workers: string[] = [];
    for (let tries = 0; tries < 100; tries++) {
      workers = execFileSync('pgrep', ['-P', String(server.child.pid)])
        .toString()
        .trim()
        .split('\n');
      if (workers.length === 2 && !workers.includes(victim)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(workers).toContain(survivor);
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(victim);
    expect((await send(server.url, { method: 'GET', path: '/health', key: '' }, new Agent())).status).toBe(200);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it('answers or resets every connection that arrives as a worker dies, leaving none hanging', async () => {
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'w.sqlite')}`, WORKERS: '2', LOG_LEVEL: 'warn' });
    const workersNow = () =>
      execFileSync('pgrep', ['-P', String(server.child.pid)])
        .toString()
        .trim()
        .split('\n');
    // A request not answered within this is hung: /health answers in milliseconds.
    const hungAfterMs = 4_000;
    const outcomes: Outcome[] = [];
    let stopped = false;
    // Fresh connections only: each one is handed to a worker as it arrives.
    const loops = Array.from({ length: 16 }, async () => {
      while (!stopped) outcomes.push(await send(server.url, { method: 'GET', path: '/health', key: '' }, new Agent(), hungAfterMs));
    });
    for (let kills = 0; kills < 3; kills++) {
      await sleep(500);
      process.kill(Number(workersNow()[0]), 'SIGKILL');
      for (let tries = 0; tries < 100 && workersNow().length < 2; tries++) await sleep(100);
    }
    await sleep(500);
    stopped = true;
    await Promise.all(loops);

    const hung = outcomes.filter((o) => o.error === 'CLIENT_TIMEOUT');
    expect(hung.length, `${hung.length} of ${outcomes.length} requests hung`).toBe(0);
    // The rest were answered, or reset by the dying worker (a client retries those): never left open.
    expect(outcomes.filter((o) => o.status !== 200 && !['ECONNRESET', 'ECONNREFUSED'].includes(o.error ?? '')).map((o) => o.error ?? o.status)).toEqual([]);
    // Answers did go through between the kills: a count, not a rate (a loaded machine answers
    // ~70 in this window where a quiet one answers hundreds).
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(20);
    expect(await server.stop()).toBe(0);
  }, 60_000);
});
