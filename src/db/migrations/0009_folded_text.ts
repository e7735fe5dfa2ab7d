import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Accounts keep their name and email case-folded (`name_folded`, `email_folded`) so that the
 * case-insensitive filters give the same answers on both databases (src/lists/request/caseFold.ts):
 * SQLite folded ASCII only, so `filter[name]=straße` could not find "ÜNÏCÖDÉ STRASSE" there
 * while PostgreSQL did. `filter[email]` becomes an equality on the folded column, served by an
 * index that also yields the rows in list order; the index on `lower(email)` goes.
 *
 * The folding is written out here as it stood when this migration was made, not imported: a
 * migration must keep meaning what it meant.
 */

function caseFold(text: string): string {
  return text.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().replaceAll('ς', 'σ').normalize('NFKC');
}

const BATCH = 2000;

export function foldedTextMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      // Added with a default so existing rows are valid at once; filled below.
      await sql`alter table accounts add column name_folded text not null default ''`.execute(db);
      await sql`alter table accounts add column email_folded text not null default ''`.execute(db);
      for (let after = ''; ; ) {
        const { rows } = await sql<{
          id: string;
          name: string;
          email: string;
        }>`select id, name, email from accounts where id > ${after} order by id limit ${BATCH}`.execute(db);
        if (rows.length === 0) break;
        for (const row of rows) {
          await sql`update accounts set name_folded = ${caseFold(row.name)}, email_folded = ${caseFold(row.email)} where id = ${row.id}`.execute(db);
        }
        after = rows[rows.length - 1].id;
      }
      // From now on every write sets them: without a default, one that did not would fail (PostgreSQL;
      // SQLite cannot drop a column default, there the write paths' types require the columns).
      if (dialect === 'postgres') {
        await sql`alter table accounts alter column name_folded drop default, alter column email_folded drop default`.execute(db);
      }
      await sql`drop index accounts_tenant_email`.execute(db);
      await sql`create index accounts_tenant_email_folded on accounts (tenant_id, email_folded, created_at, id)`.execute(db);
    },
  };
}
