// Runs once (unit project) on a SQLite file of its own: what it checks is the process model.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { send, type Call } from '../support/loadDriver.ts';
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
});
