import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * The lists' counts as a real-time aggregate (docs/decisions/0040-counts-as-a-real-time-aggregate.md):
 * a write records what it changed as one row here instead of adjusting every count and bucket it
 * touches; a folder adds the rows to the counts and deletes them in one transaction; a read adds
 * the rows still here to the counts it reads, in its snapshot. The counts stay exact: nothing to
 * rebuild, the table starts empty.
 *
 * One row per write: the record's fixed dimensions, its status, amount and metadata before and
 * after (a create has no before, a delete no after), and the types of the events it recorded.
 */
export function listChangesMigration(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  const money = dialect === 'postgres' ? 'bigint' : 'integer';
  const json = dialect === 'postgres' ? 'jsonb' : 'text';
  const now = dialect === 'postgres' ? 'now()' : "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))";
  const id = dialect === 'postgres' ? 'bigint generated always as identity primary key' : 'integer primary key';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `create table list_changes (
            id ${id},
            tenant_id text not null,
            list text not null,
            record_id text not null,
            account_id text not null,
            currency text not null,
            card_brand text not null,
            created_at ${ts},
            before_status text,
            before_amount ${money},
            before_metadata ${json},
            after_status text,
            after_amount ${money},
            after_metadata ${json},
            events ${json} not null,
            recorded_at ${ts} not null default ${now}
          )`,
        )
        .execute(db);
      await sql.raw('create index list_changes_tenant on list_changes (tenant_id, id)').execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql.raw('drop table list_changes').execute(db);
    },
  };
}
