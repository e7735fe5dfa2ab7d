// Runs once (system project), on a database of its own on the shared PostgreSQL, set read-only
// the way a standby or an old primary after a failover is: the server itself is never touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { appOnPostgres } from '../support/appOnPostgres.ts';
import { createOwnPostgresDatabase, type OwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';

describe('/ready on PostgreSQL', () => {
  let own: OwnPostgresDatabase;
  beforeAll(async () => {
    own = await createOwnPostgresDatabase('t_ready');
    const db = openDatabase(own.url, { poolMax: 1 });
    await migrateToLatest(db.kysely, db.dialect);
    await db.close();
  });
  afterAll(() => own?.drop());

  it('is 503 with Retry-After while the database takes no writes, and 200 again once it does', async () => {
    await own.admin(`alter database ${own.name} set default_transaction_read_only = on`);
    const readOnly = await appOnPostgres(own.url);
    try {
      const ready = await readOnly.send('GET', '/ready');
      expect(ready.status).toBe(503);
      expect(ready.retryAfter).toMatch(/^\d+$/);
      expect(ready.body.detail).toMatch(/takes no writes/);
    } finally {
      await readOnly.close();
      await own.admin(`alter database ${own.name} reset default_transaction_read_only`);
    }
    const writable = await appOnPostgres(own.url);
    try {
      expect(await writable.send('GET', '/ready')).toMatchObject({ status: 200, body: { status: 'ready' } });
    } finally {
      await writable.close();
    }
  });
});
