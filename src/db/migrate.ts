import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database, Dialect } from './schema.ts';
import { initialMigration } from './migrations/0001_initial.ts';

function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': initialMigration(dialect),
  };
}

/** Brings the schema up to date; safe to run on every start (already-applied steps are skipped). */
export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(dialect) };
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
