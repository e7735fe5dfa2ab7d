import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './schema.ts';

/**
 * Builds JSON objects in the database (C code) rather than as JS objects, for list pages of
 * thousands of rows. Each field is a JSON key and a SQL expression, in output order.
 */
export type JsonField = [name: string, value: RawBuilder<unknown> | JsonField[]];

export function jsonObjectSql(dialect: Dialect, fields: JsonField[]): RawBuilder<string> {
  const fn = sql.raw(dialect === 'postgres' ? 'json_build_object' : 'json_object');
  const args = fields.flatMap(([name, value]) => [sql.lit(name), Array.isArray(value) ? jsonObjectSql(dialect, value) : value]);
  return sql<string>`${fn}(${sql.join(args)})`;
}

/** A top-level JSON object as text: node-postgres would otherwise parse json columns into objects. */
export function jsonTextSql(dialect: Dialect, fields: JsonField[]): RawBuilder<string> {
  const object = jsonObjectSql(dialect, fields);
  return dialect === 'postgres' ? sql<string>`(${object})::text` : object;
}

/** A timestamp column as the API prints it: RFC 3339 UTC with milliseconds (SQLite stores it so). */
export function isoTimestampSql(dialect: Dialect, column: string): RawBuilder<string> {
  const ref = sql.ref(column);
  return dialect === 'postgres' ? sql<string>`to_char(${ref} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : sql<string>`${ref}`;
}

/** The metadata column embedded as JSON, not as a string holding JSON. */
export function jsonColumnSql(dialect: Dialect, column: string): RawBuilder<unknown> {
  const ref = sql.ref(column);
  return dialect === 'postgres' ? sql`${ref}` : sql`json(${ref})`;
}

export const col = (column: string): RawBuilder<unknown> => sql`${sql.ref(column)}`;
