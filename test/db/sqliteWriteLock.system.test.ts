// Runs once (system project), on a SQLite file of its own: what it checks is SQLite's file lock
// held by another process.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { send, type Outcome } from '../support/loadDriver.ts';
import { seed } from '../support/seedHelpers.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

/** The promise of docs/errors.md (Limits): a write waits at most 5 s for the file lock, then answers 503. */
const LOCK_WAIT_PROMISED_MS = 5_000;
/** What the other process holds the lock for: longer than that (a seed batch, a VACUUM). */
const HELD_MS = 6_500;

/** Another process that takes the write lock (BEGIN IMMEDIATE), says so, and holds it for `ms`. */
async function holdWriteLock(path: string, ms: number): Promise<ChildProcess> {
  const script = `
    import { DatabaseSync } from 'node:sqlite';
    const db = new DatabaseSync(${JSON.stringify(path)});
    db.exec('begin immediate');
    console.log('locked');
    setTimeout(() => { db.exec('commit'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  if (!chunk.toString().includes('locked')) throw new Error(`the lock holder said ${chunk}`);
  return child;
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1];

describe('SQLite locked by another process', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let origin: string;
  let writer: string;
  let reader: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'reader', 3, 30);
    writer = await createApiKey(database.db.kysely, (await findOrCreateTenant(database.db.kysely, 'writer')).id, ['read', 'write']);
    reader = await createApiKey(database.db.kysely, (await findOrCreateTenant(database.db.kysely, 'reader')).id, ['read']);
    app = await appOn(database);
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it('keeps /health and other tenants’ reads quick while a write waits, and answers the write 503 within the promised bound', async () => {
    const agent = new Agent({ keepAlive: true });
    const account = { name: 'W', email: 'w@example.com', currency: 'EUR' };
    const holder = await holdWriteLock(database.url.slice('sqlite:'.length), HELD_MS);
    try {
      const write = send(origin, { method: 'POST', path: '/v3/accounts', key: writer, body: account }, new Agent());
      const health: number[] = [];
      const reads: Outcome[] = [];
      let written: Outcome | undefined;
      void write.then((outcome) => (written = outcome));
      while (!written) {
        const probe = await send(origin, { method: 'GET', path: '/health', key: '' }, agent);
        health.push(probe.endedAt - probe.startedAt);
        reads.push(await send(origin, { method: 'GET', path: '/v3/accounts?per_page=10', key: reader }, agent));
        await sleep(20);
      }

      expect(written.status, written.body).toBe(503);
      expect(written.headers!['retry-after']).toBeDefined();
      expect(written.endedAt - written.startedAt).toBeLessThan(LOCK_WAIT_PROMISED_MS + 250);
      expect(health.length).toBeGreaterThan(20);
      expect(
        p99(health),
        `/health took ${[...health]
          .sort((a, b) => b - a)
          .slice(0, 5)
          .map(Math.round)} ms at worst`,
      ).toBeLessThan(50);
      expect(reads.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
      expect(p99(reads.map((r) => r.endedAt - r.startedAt))).toBeLessThan(100);
    } finally {
      if (holder.exitCode === null) await once(holder, 'exit');
      agent.destroy();
    }
    // The lock is gone: the same write goes through.
    expect((await send(origin, { method: 'POST', path: '/v3/accounts', key: writer, body: account }, new Agent())).status).toBe(201);
  }, 30_000);
});
