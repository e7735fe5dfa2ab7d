// Runs once (system project), on a database of its own on the shared PostgreSQL, set read-only
// and back: the server itself is never touched.
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { appOnPostgres } from '../support/appOnPostgres.ts';
import { createOwnPostgresDatabase, type OwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';

describe('the webhook sender while the database cannot take writes', () => {
  let own: OwnPostgresDatabase;
  beforeAll(async () => {
    own = await createOwnPostgresDatabase('t_sender');
    const db = openDatabase(own.url, { poolMax: 1 });
    await migrateToLatest(db.kysely, db.dialect);
    const key = await createApiKey(db.kysely, (await findOrCreateTenant(db.kysely, 'sending')).id, ['read', 'write']);
    await db.close();
    // Work for the sender (it writes only when it has some): an endpoint, and an event queued for it.
    const writer = await appOnPostgres(own.url);
    try {
      expect((await writer.send('POST', '/v3/webhook_endpoints', key, { url: 'https://hooks.example.test/in', enabled_events: ['*'] })).status).toBe(201);
      expect((await writer.send('POST', '/v3/accounts', key, { name: 'Ada', email: 'ada@example.com', currency: 'EUR' })).status).toBe(201);
    } finally {
      await writer.close();
    }
  });
  afterAll(() => own?.drop());

  it('backs off quietly: one warning when it pauses, one info line when it resumes, nothing in between', async () => {
    const lines: { level: number; msg: string }[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    await own.admin(`alter database ${own.name} set default_transaction_read_only = on`);
    const served = await appOnPostgres(own.url, { logger: { level: 'info', stream }, webhooks: { sender: true, pollMs: 50 } });
    try {
      await sleep(2_000); // 40 polls
      const warnings = lines.filter((l) => l.level >= 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0].msg).toMatch(/^webhook sender paused: the database cannot take writes now/);

      // Writable again; the pool's sessions were opened read-only, so they are ended (57P01) and replaced.
      await own.admin(`alter database ${own.name} reset default_transaction_read_only`);
      await own.admin('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [own.name]);
      const resumed = () => lines.filter((l) => /^webhook sender resumed/.test(l.msg));
      for (let waited = 0; resumed().length === 0 && waited < 10_000; waited += 100) await sleep(100);
      expect(resumed()).toHaveLength(1);
      expect(resumed()[0].level).toBe(30);
      expect(lines.filter((l) => l.level >= 40)).toHaveLength(1);
    } finally {
      await served.close();
    }
  });
});
