import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import { flagged } from '../../db/driverFlags.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { Condition, ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import { METADATA_ENTRY_TABLE, valueCountSql, type MetadataList } from '../counters/metadataValueCounts.ts';
import { searchedStatuses } from '../plan/metadataPlans.ts';
import { leadEntriesCount, leadEntriesWhere } from './leadEntries.ts';
import { entryConditionsSql } from './entryConditions.ts';
import { entryOrderLeads } from '../plan/entryOrderPlans.ts';
import { testedInEntries } from '../plan/testedInEntries.ts';

/**
 * The maintained entry counts of the keys that could lead (entryOrderLeads), as `e0`, `e1`, …:
 * read before the page's statement when there is a choice, so that the fewest entries are walked.
 * Only ever a choice of plan: every lead reads the same rows.
 */
export function entryLeadCountsSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  const search = query.conditions.filter((c) => c.match === 'metadata');
  const counts = entryOrderLeads(query).map(
    (i) => sql`${valueCountSql(scope.tenantId, table as MetadataList, search[i].key, search[i].values)} as ${sql.raw(`e${i}`)}`,
  );
  return sql<Record<string, number | string>>`select ${sql.join(counts)}`.compile(db);
}

type MetadataCondition = Extract<Condition, { match: 'metadata' }>;

const flip = (direction: 'asc' | 'desc') => (direction === 'asc' ? 'desc' : 'asc');

/**
 * A search readsInEntryOrder recognises, page and total in one statement on either database, read from the nearer
 * end of the lead key's entries in the sort's order (decision 0023). Forward and backward UNION ALL branches are
 * chosen by conditions on the statement's own total, so the failing one reads nothing (LIMIT 0; a One-Time Filter
 * on PostgreSQL). Several lead values: one run each, merged under the ORDER BY, so the skip steps over entries
 * alone and only the page is sorted. One row with a null resource when the page is empty.
 */
export function entryOrderPageStatement(
  dialect: Dialect,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
  prepared: boolean,
  lead = entryOrderLeads(query)[0],
) {
  const keys = query.conditions.filter((c): c is MetadataCondition => c.match === 'metadata');
  const statuses = searchedStatuses(query);
  const entryTable = METADATA_ENTRY_TABLE[table as MetadataList];
  const entries = sql.table(entryTable);
  // The entries walked under their own name (as their plans name them: test/lists/queryPlans.e2e.test.ts).
  const e = (column: string) => sql.ref(`${entryTable}.${column}`);
  const column = query.sort[0].column;
  const direction = query.sort[0].direction;
  const greatest = dialect === 'postgres' ? 'greatest' : 'max';
  const least = dialect === 'postgres' ? 'least' : 'min';
  const offset = sql`cast(${paging.offset} as bigint)`;
  const perPage = sql`cast(${paging.perPage} as bigint)`;
  // Forward from the start when the page is no nearer the end (pageOf's choice, in SQL).
  const forward = sql`(${offset} * 2 + ${perPage} <= (select n from t))`;
  // Statuses the entries do not carry (an account's): each entry's record tested by id, one row (OFFSET 0: PostgreSQL keeps it a per-entry test, not a join).
  const statusCarried = query.conditions.some((c) => c.match === 'in' && c.column === 'status' && testedInEntries(entryTable, c));
  const inStatuses =
    statuses && !statusCarried
      ? sql` and exists (select 1 from ${sql.table(table)} as s where s.id = ${e('record_id')} and s.tenant_id = ${scope.tenantId} and s.status in (${sql.join(statuses)}) limit 1 offset 0)`
      : sql``;
  // A created_at range, a payment's statuses, currencies, card brands, amount range: each entry's own columns (entryConditions.ts).
  const inEntries = entryConditionsSql(entryTable, query.conditions);
  const more = sql`${inStatuses}${inEntries}`;
  const ordered = (d: 'asc' | 'desc') => sql`order by ${sql.ref(column)} ${sql.raw(d)}, record_id ${sql.raw(d)}`;
  // One run per value of the lead, each in the sort's order in its index, merged under the ORDER BY that follows: SQLite
  // merges a compound's arms (MERGE (UNION ALL)); PostgreSQL merges (Merge Append) only runs that are each a subquery with
  // an ORDER BY of its own (an arm with a WHERE is not pulled up into the append, and unordered the runs are sorted whole).
  const runs = (d: 'asc' | 'desc', branch: RawBuilder<unknown>) => {
    const run = (value: string) =>
      sql`select ${e(column)}, ${e('record_id')} from ${entries} where ${leadEntriesWhere(entryTable, scope.tenantId, keys, lead, more, [value])} and ${branch}`;
    const values = keys[lead].values;
    if (values.length === 1) return run(values[0]);
    if (dialect === 'sqlite') return sql.join(values.map(run), sql` union all `);
    return sql`select * from (${sql.join(
      values.map((v) => sql`(${run(v)} ${ordered(d)})`),
      sql` union all `,
    )}) as runs`;
  };
  // The branch not taken has LIMIT 0 too: SQLite tests a condition on a subquery row by row, and would step through its skip doing so.
  const fromStart = sql`${runs(direction, forward)} ${ordered(direction)}
    limit (select case when ${forward} then ${perPage} else 0 end) offset (${offset} + 0)`;
  const fromEnd = sql`${runs(flip(direction), sql`not ${forward}`)} ${ordered(flip(direction))}
    limit (select case when ${forward} then 0 else ${sql.raw(greatest)}(0, ${sql.raw(least)}(${perPage}, n - ${offset})) end from t)
    offset (select ${sql.raw(greatest)}(0, n - ${offset} - ${perPage}) from t)`;
  // Each record by its id: PostgreSQL's LATERAL with LIMIT 1 is a nested loop from the page's entries whatever a generic plan guesses.
  // (SQLite: the table under its own name, as its plan names it: test/lists/queryPlans.e2e.test.ts; CROSS JOIN keeps the
  // page's entries outer, which SQLite's planner otherwise swaps for a walk of the tenant's records when the runs are merged.)
  const record =
    dialect === 'postgres'
      ? sql`cross join lateral (select resource from ${sql.table(table)} where id = m.record_id and tenant_id = ${scope.tenantId} limit 1) as r`
      : sql`cross join ${sql.table(table)} on ${sql.ref(`${table}.id`)} = m.record_id and ${sql.ref(`${table}.tenant_id`)} = ${scope.tenantId}`;
  const resource = dialect === 'postgres' ? sql.ref('r.resource') : sql.ref(`${table}.resource`);
  const page = sql`select ${resource} as resource, ${sql.ref(`m.${column}`)} as sorted, m.record_id
    from (select * from (${fromStart}) as f union all select * from (${fromEnd}) as b) as m ${record}`;
  // One key beside statuses at most: its values' maintained counts in those statuses. Several, or other conditions in the
  // entries: counted along the lead's entries, as the page walks them.
  const tested = query.conditions.some((c) => testedInEntries(entryTable, c) && !(c.match === 'in' && c.column === 'status'));
  const total =
    keys.length === 1 && !tested
      ? valueCountSql(scope.tenantId, table as MetadataList, keys[0].key, keys[0].values, statuses)
      : leadEntriesCount(entryTable, scope.tenantId, keys, lead, more);
  const d = sql.raw(direction);
  const statement = sql`with t as ${sql.raw(dialect === 'postgres' ? 'materialized ' : '')}(select ${total} as n)
    select t.n as total, p.resource from t left join (${page}) as p on true order by p.sorted ${d}, p.record_id ${d}`;
  return flagged(statement, prepared ? { prepared: true } : {});
}
