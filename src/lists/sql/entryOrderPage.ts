import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import { flagged } from '../../db/driverFlags.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { Condition, ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import { METADATA_ENTRY_TABLE, valueCountSql, type MetadataList } from '../counters/metadataValueCounts.ts';
import { searchedStatuses } from '../plan/metadataPlans.ts';
import { leadEntriesCount, leadEntriesWhere } from './leadEntries.ts';
import { entryConditionsSql, testedInEntries } from './entryConditions.ts';

/**
 * A metadata search read in its entries' order (docs/query-plans.md#metadata-search): the entries
 * of a value are kept in the list's default order, (tenant_id, key, value, created_at, record_id)
 * (migration 0023), so a search with one value of a key, over the tenant's whole list, sorted
 * by created_at (either direction; ties on id in the same direction), has its page in that key
 * alone: the skip over narrow index entries (index-only on both databases), then the page's
 * records read by id. No matching record is read but the page's, nothing is sorted but the page.
 * Its total is the value's maintained count (migration 0020), read in the same statement.
 *
 * With an any-of status filter beside it (migration 0024) the same: the entries are walked in
 * order and each tested for its status (a payment's in the entry itself since 0032; an account's
 * record by id, one row, so a page costs (skip + per_page) × entries ÷ matches of those), its
 * total the value's count in those statuses.
 *
 * With other keys beside it (`filter[metadata][channel]=web&filter[metadata][tier]=gold`), the
 * entries of one key (the lead: the one with the fewest, entryOrderLead) are
 * walked so, each probed for the record's entry of every other key (its value_record index, one
 * descent, index-only): no record is read but the page's. The total is counted the same way,
 * along the lead's entries (no counts hold a pair of keys), where it read each of the lead's
 * records (1M payments: `channel=web & tier=gold` 0.5–1.2 s, the records read at random; 24 ms so).
 *
 * With a created_at range beside them (no status filter), the same entries bounded by the range
 * in the entries' own index, which carries each record's created_at: the page is a run of them,
 * and the total is counted there, index-only, no record read (1M payments, `channel=web &
 * created_at ≥ 2026-03-01`: the total read each of 66,482 records by id, 0.6 s, and a deep page
 * walked the list's index probing each row, 0.5 s).
 *
 * With a payment's currencies, card brands or an amount range beside them (a created_at range
 * too), the same: each entry carries its payment's currency, card_brand and amount (migration
 * 0030), tested in the entries' own rows (entryConditions.ts), so the page is the run of those
 * that pass and the total is counted along them, no payment read but the page's (1M payments,
 * `channel=web & currency=EUR`: 1.2 s on PostgreSQL, 0.34 s on SQLite, each entry's payment read;
 * 39 ms and 12 ms so). Since migration 0032 a payment's entries carry its status too (rewritten
 * as it moves), so a payment's statuses are tested so, beside any of those. Accounts' entries
 * carry nothing: their currency and status change (an account's statuses: its record tested).
 *
 * A payment search sorted by amount is read so too, from the entries' amount_order index (migration
 * 0032; ties on id in the same direction, as the list's). Several values of the lead: one run per
 * value, each in the sort's order, merged (1M payments on SQLite, `channel=web,pos & status=
 * succeeded`, sort=-amount, the middle page: 1.2 s walking the amount index and probing each
 * payment's entry; 17 ms so).
 *
 * Every other metadata search (a filter the entries do not answer, one account's list, a sort of
 * several keys or by a column the entries are not ordered by) keeps metadataPlans.ts' plans.
 */
export function readsInEntryOrder(scope: ListScope, query: ListQuery): boolean {
  const search = query.conditions.filter((c) => c.match === 'metadata');
  const others = query.conditions.filter((c) => c.match !== 'metadata');
  const statusOnly = others.length <= 1 && others.every((c) => c.match === 'in' && c.column === 'status');
  return (
    search.length > 0 &&
    (statusOnly || others.every((c) => testedInEntries(search[0].column, c))) &&
    scope.accountId === undefined &&
    scope.endpointId === undefined &&
    query.sort.length === 1 &&
    ordersEntries(search[0].column, query.sort[0].column) &&
    !(query.entriesBehind && query.sort[0].column === 'amount')
  );
}

/**
 * Whether the entries of `entryTable` are kept in the order of `column` too: created_at, every
 * list's (the primary key, migration 0023); a payment's amount (`payment_metadata_amount_order`,
 * migration 0032).
 */
export function ordersEntries(entryTable: string, column: string): boolean {
  return column === 'created_at' || (column === 'amount' && entryTable === METADATA_ENTRY_TABLE.payments);
}

/** Which searched keys (by their number among the metadata conditions) could lead: every one, the fewest entries chosen. */
export function entryOrderLeads(query: ListQuery): number[] {
  return query.conditions.filter((c) => c.match === 'metadata').map((_, i) => i);
}

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

/** The lead with the fewest entries among `counts` (entryLeadCountsSelect's row); the first such on a tie. */
export function entryOrderLead(query: ListQuery, counts: Record<string, number | string>): number {
  const leads = entryOrderLeads(query);
  return leads.reduce((best, i) => (Number(counts[`e${i}`]) < Number(counts[`e${best}`]) ? i : best), leads[0]);
}

type MetadataCondition = Extract<Condition, { match: 'metadata' }>;

const flip = (direction: 'asc' | 'desc') => (direction === 'asc' ? 'desc' : 'asc');

/**
 * The page `paging.offset` rows into a search readsInEntryOrder recognises, with its total, as one
 * statement on either database: `select t.n as total, p.resource from t left join (page) p`, one
 * row with a null resource when the page is empty. The page is read from the nearer end of the
 * entries of the searched key number `lead` (entryOrderLead; the first when not given), in the
 * order of the list's sort column (ordersEntries), chosen in the statement from its own total
 * (the same snapshot): two branches of a UNION ALL under conditions on that total alone, one
 * reading forward OFFSET `offset`, the other backward from the end; the one whose condition fails
 * reads nothing (its LIMIT is 0, and on PostgreSQL its condition is a One-Time Filter). Several
 * values of the lead: one run of entries per value, each in the sort's order, merged (a UNION ALL
 * under the ORDER BY: PostgreSQL's Merge Append, SQLite's MERGE), so the skip still steps over
 * entries alone. Only the page's rows are put in order at the end (at most per_page).
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
