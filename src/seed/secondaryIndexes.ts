import { sql, type Transaction } from 'kysely';
import type { Database, Dialect } from '../db/schema.ts';

/** One index as the database itself defines it: the catalog's text is what recreates it. */
export interface IndexDefinition {
  /** The name, quoted (and schema-qualified on PostgreSQL), ready for DROP INDEX. */
  name: string;
  /** The CREATE INDEX statement the catalog holds (pg_get_indexdef / sqlite_master.sql). */
  sql: string;
}

/**
 * A table's secondary indexes, read from the catalog: those that back no constraint (primary
 * key, unique constraints, which foreign keys and upserts rely on, stay). The catalog is the one
 * source of truth: whatever migrations made is recreated as it was, with no list kept here.
 */
export async function secondaryIndexes(trx: Transaction<Database>, dialect: Dialect, table: string): Promise<IndexDefinition[]> {
  if (dialect === 'sqlite') {
    // sql is null for the automatic indexes of PRIMARY KEY and UNIQUE constraints.
    const rows = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
      where type = 'index' and tbl_name = ${table} and sql is not null order by name`.execute(trx);
    return rows.rows.map((r) => ({ name: `"${r.name.replaceAll('"', '""')}"`, sql: r.sql }));
  }
  const rows = await sql<{ name: string; sql: string }>`select quote_ident(n.nspname) || '.' || quote_ident(i.relname) as name, pg_get_indexdef(i.oid) as sql
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_namespace n on n.oid = i.relnamespace
    where x.indrelid = ${table}::regclass
      and not exists (select 1 from pg_constraint c where c.conindid = i.oid)
    order by i.relname`.execute(trx);
  return rows.rows;
}

/**
 * Drops a table's secondary indexes inside the caller's transaction and returns what recreates
 * them. Both databases' DDL is transactional: a rollback (an error, a killed process) brings the
 * indexes back as they were, and readers on other connections see them throughout (PostgreSQL:
 * they wait, DROP INDEX locks the table ACCESS EXCLUSIVE until the commit; SQLite: their snapshot).
 */
export async function dropSecondaryIndexes(trx: Transaction<Database>, dialect: Dialect, table: string): Promise<IndexDefinition[]> {
  const indexes = await secondaryIndexes(trx, dialect, table);
  for (const index of indexes) await sql`drop index ${sql.raw(index.name)}`.execute(trx);
  return indexes;
}

/** Builds the indexes again from the catalog's own text, in the same transaction; `between` runs before each (it may throw to stop). */
export async function createIndexes(trx: Transaction<Database>, indexes: IndexDefinition[], between?: () => void): Promise<void> {
  for (const index of indexes) {
    between?.();
    await sql.raw(index.sql).execute(trx);
  }
}
