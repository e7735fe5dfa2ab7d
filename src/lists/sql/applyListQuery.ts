import { sql, type SelectQueryBuilder } from 'kysely';
import type { Condition, ListQuery, SortKey } from '../request/parseListQuery.ts';
import { METADATA_ENTRY_TABLE } from '../counters/metadataValueCounts.ts';
import { leadEntriesWhere } from './leadEntries.ts';

/** A range operator's SQL. */
export const RANGE_SQL = { gte: '>=', gt: '>', lte: '<=', lt: '<' } as const;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The list table whose records an entry table's entries are of. */
const RECORD_TABLE = Object.fromEntries(Object.entries(METADATA_ENTRY_TABLE).map(([list, table]) => [table, list])) as Record<string, string>;

/**
 * Metadata search in the entry table's indexes alone, written three ways for metadataPlans.ts, the same rows each:
 * `id in (select record_id …)` when the plan drives from the entries (each probed for the keys `heldWith`);
 * `probe`, one probe of the `…_value_record` index per row walked, needing only the row's id; `dated probe`
 * (PostgreSQL), the same with the row's created_at. OFFSET 0 keeps PostgreSQL from making an EXISTS a join,
 * which a generic plan would hash over every entry of the value (decisions 0020, 0027).
 */
function metadataSql(c: Extract<Condition, { match: 'metadata' }>, tenantId: string) {
  const value = c.values.length === 1 ? sql`value = ${c.values[0]}` : sql`value in (${sql.join(c.values)})`;
  if (c.written === 'dated probe') {
    // PostgreSQL, which reads the row it tests anyway: the row's created_at too, and one EXISTS per value, so each is
    // one exact descent of the entries' primary key whatever a generic plan guesses (one took the primary key with
    // record_id a mere filter, or `value = any(…)` as a filter: every entry of the key read per row, 3–17 ms a row at 1M).
    const dated = sql.ref(`${RECORD_TABLE[c.column]}.created_at`);
    const probes = c.values.map(
      (v) =>
        sql`exists (select 1 from ${sql.table(c.column)} where tenant_id = ${tenantId} and key = ${c.key} and value = ${v} and created_at = ${dated} and record_id = ${sql.ref('id')} limit 1 offset 0)`,
    );
    return sql<boolean>`(${sql.join(probes, sql` or `)})`;
  }
  if (c.written === 'probe') {
    return sql<boolean>`exists (select 1 from ${sql.table(c.column)} where tenant_id = ${tenantId} and key = ${c.key} and ${value} and record_id = ${sql.ref('id')} limit 1 offset 0)`;
  }
  const held = c.heldWith ?? [];
  return sql<boolean>`${sql.ref('id')} in (select record_id from ${sql.table(c.column)} where ${leadEntriesWhere(c.column, tenantId, [c, ...held], 0)})`;
}

function conditionSql(c: Condition, tenantId: string) {
  const column = sql.ref(c.column);
  // How a condition is written steers the plan only (lists/sql/keyedFilters.ts, rangePlans.ts): `+column` is served by no index.
  const tested = 'written' in c && c.written === 'unindexed' ? sql`+${column}` : column;
  switch (c.match) {
    case 'in': {
      // A literal steers the plan only (lists/plan/valuePlans.ts): the same rows match.
      if (c.written === 'literal') {
        const values = c.values.map((v) => sql.lit(v));
        return c.values.length === 1 ? sql<boolean>`${column} = ${values[0]}` : sql<boolean>`${column} in (${sql.join(values)})`;
      }
      return c.values.length === 1 ? sql<boolean>`${tested} = ${c.values[0]}` : sql<boolean>`${tested} in (${sql.join(c.values)})`;
    }
    case 'equals':
      return sql<boolean>`${tested} = ${c.value}`;
    case 'contains':
      return sql<boolean>`${column} like ${`%${escapeLike(c.value)}%`} escape '\\'`;
    case 'range': {
      // How it is written steers the plan only (lists/plan/rangePlans.ts): the same rows match.
      const op = sql.raw(RANGE_SQL[c.op]);
      if (c.written === 'literal') return sql<boolean>`${column} ${op} ${sql.lit(c.value)}`;
      if (c.written === 'opaque') return sql<boolean>`coalesce(${column}, ${column}) ${op} ${c.value}`;
      return sql<boolean>`${tested} ${op} ${c.value}`;
    }
    case 'metadata':
      return metadataSql(c, tenantId);
  }
}

/** Adds the filters of a list query (WHERE) to a select of the tenant's rows. */
// biome-ignore lint/suspicious/noExplicitAny: any database, table and row: this only adds clauses or wraps a driver call
export function applyConditions<QB extends SelectQueryBuilder<any, any, any>>(qb: QB, query: ListQuery, tenantId: string): QB {
  let out = qb;
  for (const c of query.conditions) out = out.where(conditionSql(c, tenantId)) as QB;
  return out;
}

/** A sort key's column as written: `+column` unindexed (SQLite: the order then comes from no index, lists/plan/rangePlans.ts). */
export function sortKeySql(key: SortKey) {
  return key.written === 'unindexed' ? sql`+${sql.ref(key.column)}` : sql.ref(key.column);
}

/** Adds the total order: the requested keys, then id in the last key's direction (one index scan direction). */
// biome-ignore lint/suspicious/noExplicitAny: any database, table and row: this only adds clauses or wraps a driver call
export function applyOrder<QB extends SelectQueryBuilder<any, any, any>>(qb: QB, query: ListQuery): QB {
  let out = qb;
  for (const key of query.sort) out = out.orderBy(sortKeySql(key), key.direction) as QB;
  const last = query.sort[query.sort.length - 1];
  return out.orderBy(sql.ref('id'), last?.direction ?? 'asc') as QB;
}
