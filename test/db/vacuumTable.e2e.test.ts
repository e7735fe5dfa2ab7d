import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vacuumTable } from '../../src/db/vacuumTable.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

/** A table of our schema vacuumed on demand (src/db/vacuumTable.ts): directly, and behind a transaction pooler. */
describe('vacuuming one table', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const lastVacuum = async () =>
    (
      await sql<{
        at: string | null;
      }>`select last_vacuum as at from pg_stat_user_tables where schemaname = current_schema() and relname = 'list_changes'`.execute(database.db.kysely)
    ).rows[0]?.at ?? null;

  it.runIf(TEST_DIALECT === 'postgres')("vacuums the table in the connection's own schema, not only the server's default one", async () => {
    expect(await lastVacuum()).toBeNull();
    await vacuumTable(database.db.kysely, 'list_changes');
    expect(await lastVacuum()).not.toBeNull();
  });

  it.runIf(TEST_DIALECT === 'sqlite')('does nothing on SQLite, whose deletes free their index entries at once', async () => {
    await expect(vacuumTable(database.db.kysely, 'list_changes')).resolves.toBeUndefined();
  });
});
