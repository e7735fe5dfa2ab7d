// On a database of its own on the shared server (its settings reach no other test).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { isDatabaseReadOnly } from '../../src/db/databaseErrors.ts';
import { createOwnPostgresDatabase, type OwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';

describe('a pooled connection refused as read-only (25006)', () => {
  let own: OwnPostgresDatabase;
  beforeAll(async () => {
    own = await createOwnPostgresDatabase('ro_release');
  });
  afterAll(() => own?.drop());

  it('is closed, not pooled again: the next statement gets a new connection (one that takes writes, once the server does)', async () => {
    const db = openDatabase(own.url, { poolMax: 1 });
    try {
      await sql`create table notes (n int)`.execute(db.kysely);
      // This connection turns read-only, as one to a primary demoted in a failover would be.
      const demoted = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely)).rows[0]?.pid;
      await sql`set default_transaction_read_only = on`.execute(db.kysely);
      const refused = await sql`insert into notes values (1)`.execute(db.kysely).catch((error: unknown) => error);
      expect(isDatabaseReadOnly(refused)).toBe(true);
      await sql`insert into notes values (2)`.execute(db.kysely);
      const { rows } = await sql<{ pid: number; n: number }>`select pg_backend_pid() as pid, (select count(*) from notes)::int as n`.execute(db.kysely);
      expect(rows[0]?.pid).not.toBe(demoted);
      expect(rows[0]?.n).toBe(1);
    } finally {
      await db.close();
    }
  });
});
