// Each acknowledged write records the primary's WAL position for its tenant, before its answer
// (a database of its own on the shared server: a trigger makes recording fail on purpose).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { openReadRouting } from '../../src/db/openReadRouting.ts';
import type { ReadRouting } from '../../src/db/readReplicas.ts';
import { buildApp } from '../../src/http/buildApp.ts';
import { createOwnPostgresDatabase, type OwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';

describe('recording write positions, with a replica configured', () => {
  let own: OwnPostgresDatabase;
  let db: Db;
  let reads: ReadRouting;
  let app: FastifyInstance;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    own = await createOwnPostgresDatabase('positions');
    db = openDatabase(own.url, { poolMax: 3 });
    await migrateToLatest(db.kysely, db.dialect);
    tenantId = (await findOrCreateTenant(db.kysely, 'writer')).id;
    key = await createApiKey(db.kysely, tenantId, ['read', 'write']);
    // The "replica" is the primary itself: it answers as no standby, so reads stay on the primary.
    reads = openReadRouting(db, { primary: own.url, replicas: [own.url] }, { poolMax: 1 }, 5_000);
    await reads.start();
    app = await buildApp({
      config: {
        publicUrl: undefined,
        trustProxy: false,
        logLevel: 'silent',
        cardFingerprintSecret: 'test-secret',
        limits: { rateLimitPerKey: 0, rateLimitPerIp: 0 },
        webhooks: { sender: false },
      },
      db,
      reads,
      logger: false,
    });
  });
  afterAll(async () => {
    await app?.close();
    await reads?.close();
    await db?.close();
    await own?.drop();
  });

  const position = async () =>
    Number((await db.kysely.selectFrom('tenant_write_positions').select('position').where('tenant_id', '=', tenantId).executeTakeFirst())?.position ?? 0);
  const currentLsn = async () => Number((await sql<{ at: string }>`select (pg_current_wal_lsn() - '0/0')::bigint as at`.execute(db.kysely)).rows[0]?.at);
  const create = (idempotencyKey: string) =>
    app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
      payload: { name: 'Ada', email: 'ada@example.com', currency: 'EUR' },
    });

  it('records, after each acknowledged write, a position at or past its commit, growing', async () => {
    expect(await position()).toBe(0);
    const first = await create('k1');
    expect(first.statusCode).toBe(201);
    const afterFirst = await position();
    expect(afterFirst).toBeGreaterThan(0);
    expect(afterFirst).toBeLessThanOrEqual(await currentLsn());
    const second = await create('k2');
    expect(second.statusCode).toBe(201);
    expect(await position()).toBeGreaterThan(afterFirst);
    // A read names where it ran: the "replica" is a primary, so never it.
    const list = await app.inject({ method: 'GET', url: '/v3/accounts', headers: { authorization: `Bearer ${key}` } });
    expect(list.headers['server-timing']).toMatch(/^app;dur=[0-9.]+, db;desc="primary"$/);
    expect(reads.views()[0]?.status).toBe('not-a-standby');
  });

  it('does not acknowledge a write whose position cannot be recorded; its retry with the same key is acknowledged and recorded', async () => {
    // In this test's own database (a trigger that refuses every write of a position).
    const refuse = async (statements: string) => {
      await sql.raw(statements).execute(db.kysely);
    };
    await refuse(`create function refuse() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`);
    await refuse('create trigger refuse before insert or update on tenant_write_positions for each row execute function refuse()');
    const before = await position();
    const refused = await create('k3');
    expect(refused.statusCode).toBeGreaterThanOrEqual(500);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    // The account itself was committed: the retry replays it.
    await refuse('drop trigger refuse on tenant_write_positions');
    const retried = await create('k3');
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(await position()).toBeGreaterThan(before);
  });
});
