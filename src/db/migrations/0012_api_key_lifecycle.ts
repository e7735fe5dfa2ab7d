import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * API key lifecycle: a key may expire (`expires_at`, set at creation or by a rotation's grace
 * period), remembers when it was last used (`last_used_at`, written at most once a minute per
 * key), and a rotated key names the prefix of the key that replaced it (`replaced_by`), so a
 * refused request can say why.
 */
export function apiKeyLifecycleMigration(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw(`alter table api_keys add column expires_at ${ts}`).execute(db);
      await sql.raw(`alter table api_keys add column last_used_at ${ts}`).execute(db);
      await sql.raw('alter table api_keys add column replaced_by text').execute(db);
      await sql.raw('create index api_keys_prefix on api_keys (key_prefix)').execute(db);
    },
  };
}
