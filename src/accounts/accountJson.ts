import type { Dialect } from '../db/schema.ts';
import { col, isoTimestampSql, jsonColumnSql, jsonTextSql } from '../db/jsonSql.ts';

/** The account resource (accountSchema.ts) built by the database, field for field. */
export function accountJsonSql(dialect: Dialect) {
  return jsonTextSql(dialect, [
    ['id', col('id')],
    ['name', col('name')],
    ['email', col('email')],
    ['currency', col('currency')],
    ['status', col('status')],
    ['metadata', jsonColumnSql(dialect, 'metadata')],
    ['created_at', isoTimestampSql(dialect, 'created_at')],
    ['updated_at', isoTimestampSql(dialect, 'updated_at')],
  ]);
}
