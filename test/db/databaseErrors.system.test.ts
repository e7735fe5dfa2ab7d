// Runs once (system project), on databases and roles of its own on the shared PostgreSQL: each
// condition is provoked for real, and the server itself is never reconfigured.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { appOnPostgres } from '../support/appOnPostgres.ts';
import { createOwnPostgresDatabase, type OwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';
import { seed } from '../support/seedHelpers.ts';

const expectRetryable503 = (answer: { status: number; retryAfter: unknown; body: { type: string } }) => {
  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toMatch(/^\d+$/);
  expect(answer.body.type).toMatch(/\/problems\/(unavailable|database-busy)$/);
};

describe('every PostgreSQL condition a request can meet is a 503 problem with Retry-After, never a 500', () => {
  let own: OwnPostgresDatabase;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    own = await createOwnPostgresDatabase('t_conditions');
    const db = openDatabase(own.url, { poolMax: 2 });
    await migrateToLatest(db.kysely, db.dialect);
    await seed(db, 'conditions', 2, 0);
    const tenant = await findOrCreateTenant(db.kysely, 'conditions');
    key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
    accountId = (await db.kysely.selectFrom('accounts').select('id').where('status', '=', 'active').executeTakeFirstOrThrow()).id;
    await db.close();
  });
  afterAll(() => own?.drop());

  it('too many connections (53300: the role’s CONNECTION LIMIT, all taken by others)', async () => {
    await own.admin(`alter role ${own.name} connection limit 1`);
    const holder = new pg.Client({ connectionString: own.url });
    await holder.connect();
    const served = await appOnPostgres(own.url);
    try {
      const answer = await served.send('GET', '/v3/accounts', key);
      expectRetryable503(answer);
      expect(answer.body.type).toMatch(/database-busy$/);
    } finally {
      await served.close();
      await holder.end();
      await own.admin(`alter role ${own.name} connection limit -1`);
    }
  });

  it('a write to a database that takes none (25006), while reads go on', async () => {
    await own.admin(`alter database ${own.name} set default_transaction_read_only = on`);
    const served = await appOnPostgres(own.url);
    try {
      const write = await served.send('POST', '/v3/accounts', key, { name: 'Read only', email: 'ro@example.com', currency: 'EUR' });
      expectRetryable503(write);
      expect(write.body.detail).toMatch(/read-only/);
      expect((await served.send('GET', '/v3/accounts', key)).status).toBe(200);
    } finally {
      await served.close();
      await own.admin(`alter database ${own.name} reset default_transaction_read_only`);
    }
  });

  it('a connection terminated by an administrator mid-request (57P01)', async () => {
    const served = await appOnPostgres(own.url);
    const locker = new pg.Client({ connectionString: own.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select id from accounts where id = $1 for update', [accountId]);
      const waiting = served.send('PATCH', `/v3/accounts/${accountId}`, key, { name: 'Renamed' });
      let pid: number | undefined;
      for (let tries = 0; pid === undefined && tries < 100; tries++) {
        const { rows } = await own.admin(`select pid from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'`, [own.name]);
        pid = rows[0]?.pid;
        if (pid === undefined) await new Promise((resume) => setTimeout(resume, 50));
      }
      expect(pid).toBeDefined();
      await own.admin('select pg_terminate_backend($1)', [pid]);
      expectRetryable503(await waiting);
    } finally {
      await locker.query('rollback');
      await locker.end();
      await served.close();
    }
  });
});
