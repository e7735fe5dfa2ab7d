import { sql, type Expression, type Kysely } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import { flagged } from '../../db/driverFlags.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { Condition, ListQuery } from '../request/parseListQuery.ts';
import { countedTotalSelect, countSelect, offsetPageSelect, type ListScope, type ListTable } from './listPageQueries.ts';
import { countedSlice, type ListSlice } from '../plan/listSlice.ts';
import { DRIVEN_ENTRY_IN_ROWS, searchedStatuses, totalIsValueCount, withMetadataLead, withMetadataProbed } from '../plan/metadataPlans.ts';
import { METADATA_ENTRY_TABLE, valueCountSql, type MetadataList } from '../counters/metadataValueCounts.ts';
import { leadEntriesCount, leadEntriesWhere } from './leadEntries.ts';
import { entryConditionsSql } from './entryConditions.ts';
import { LIST_OF_ENTRIES, testedInEntries } from '../plan/testedInEntries.ts';
import type { MetadataCount } from '../plan/metadataPlans.ts';
import { totalOrder } from '../plan/totalOrder.ts';

type MetadataCondition = Extract<Condition, { match: 'metadata' }>;

/**
 * The number of the tenant's entries of one searched key with any of its values: the sum of
 * their maintained counts (migration 0020), a few rows read however many records hold them.
 */
function entryCountSql(tenantId: string, c: MetadataCondition) {
  return valueCountSql(tenantId, LIST_OF_ENTRIES[c.column], c.key, c.values);
}

/**
 * The list's total when totalIsValueCount holds: the sum of the maintained counts of its key's
 * values in its statuses (migration 0024), or in every status when it filters none.
 */
function matchCountSql(tenantId: string, query: ListQuery) {
  const [c] = searched(query);
  return valueCountSql(tenantId, LIST_OF_ENTRIES[c.column], c.key, c.values, searchedStatuses(query));
}

/**
 * The list without its metadata search, when that is narrower than the tenant's whole list and a
 * counted slice (the scope's account, any-of filters on counted dimensions, nothing else): its
 * size is then in list_counts.
 */
function otherFiltersSlice(table: ListTable, scope: ListScope, query: ListQuery): ListSlice | undefined {
  const others = query.conditions.filter((c) => c.match !== 'metadata');
  if (others.length === 0 && scope.accountId === undefined) return undefined;
  return countedSlice(table, scope, { ...query, conditions: others });
}

const searched = (query: ListQuery) => query.conditions.filter((c): c is MetadataCondition => c.match === 'metadata');

/**
 * Whether the list's conditions are its metadata search and conditions its entries answer (a
 * created_at range; a payment's statuses, currencies, card brands, amount range: entryConditions.ts), over
 * the tenant's whole list: its matches are then entries, found without reading a record.
 */
const searchesEntriesAlone = (table: ListTable, scope: ListScope, query: ListQuery) =>
  query.conditions.every((c) => c.match === 'metadata' || testedInEntries(METADATA_ENTRY_TABLE[table as MetadataList], c)) &&
  scope.accountId === undefined &&
  scope.endpointId === undefined;

/** The first of `values` (expressions of the same row) that is the least, as a CASE of them all: `pick(i)` of it. */
function leastCase(values: Expression<number>[], pick: (i: number) => Expression<unknown>) {
  if (values.length === 1) return pick(0);
  const arms = values.slice(0, -1).map(
    (v, i) =>
      sql`when ${sql.join(
        values.slice(i + 1).map((w) => sql`${v} <= ${w}`),
        sql` and `,
      )} then ${pick(i)}`,
  );
  return sql`(case ${sql.join(arms, sql` `)} else ${pick(values.length - 1)} end)`;
}

/**
 * Several keys: how many records hold them all if the keys were independent, the product of
 * their entry counts over the list's size to the power of one less (a float): `channel=web`
 * (66,482) and `tier=gold` (10,098) of 1M payments, 671 (659 hold both). Only ever a choice of plan.
 */
function independentMatches(each: Expression<number>[], size: Expression<number>) {
  return sql<number>`(${sql.join(
    each.map((e, i) => (i === 0 ? sql`cast(${e} as double precision)` : sql`${e} / cast(nullif(${size}, 0) as double precision)`)),
    sql` * `,
  )})`;
}

/**
 * What a metadata search's plans are chosen from, read once: `entries`, the least entry count over the searched
 * keys, and `lead`, the key with it (fewest to drive from); `matches`, the list's rows when the counts hold them
 * (totalIsValueCount), else `entries`; `size`, the tenant's records; `slice`, the list without its search when
 * list_counts has it, else null. Every count sums maintained value counts: a few rows for any value (decision 0020).
 */
export function metadataShareSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  const keys = searched(query);
  const whole = { account_id: [''], status: [''], currency: [''], card_brand: [''] };
  const slice = otherFiltersSlice(table, scope, query);
  const size = sql<number>`(${countedTotalSelect(db, scope.tenantId, table, whole)})`;
  const sliceSize = slice ? sql<number | null>`(${countedTotalSelect(db, scope.tenantId, table, slice)})` : sql<number | null>`cast(null as bigint)`;
  const counts = sql.join(keys.map((c, i) => sql`${entryCountSql(scope.tenantId, c)} as ${sql.raw(`e${i}`)}`));
  const each = keys.map((_, i) => sql.ref<number>(`k.e${i}`));
  const entries = sql<number>`${leastCase(each, (i) => each[i])}`;
  // One key alone: its entries are its matches; with statuses, their counts' sum.
  const statuses = totalIsValueCount(scope, query) && searchedStatuses(query) !== undefined;
  return db
    .selectFrom(sql`(select ${counts})`.as('k'))
    .select([
      entries.as('entries'),
      (statuses ? matchCountSql(scope.tenantId, query) : each.length > 1 ? independentMatches(each, size) : entries).as('matches'),
      sql<number>`${leastCase(each, (i) => sql.lit(i))}`.as('lead'),
      size.as('size'),
      sliceSize.as('slice'),
    ]);
}

/**
 * PostgreSQL: the list's rows driven from the lead key's entries (`m`), each record read by id in a LATERAL
 * subquery with LIMIT 1, which the planner cannot turn into a join: a nested loop whatever a generic plan guesses
 * (as `id in (…)` it seq-scanned and sorted the table; decision 0020). Each entry is probed for the other keys
 * first (leadEntries.ts), then the record tested against the list's other conditions; `columns` of it.
 */
function drivenRows(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, lead: number, columns: string[]) {
  const keys = searched(query);
  // The other keys probed from each entry (leadEntries.ts): only the records holding them all are read.
  const rest = { ...query, conditions: query.conditions.filter((c) => c.match !== 'metadata') };
  const entries = sql`select record_id from ${sql.table(keys[lead].column)} where ${leadEntriesWhere(keys[lead].column, scope.tenantId, keys, lead)}`;
  const record = countSelect(db, table, scope, rest)
    .clearSelect()
    .select(columns.map((c) => sql.ref(c).as(c)))
    .where(sql.ref('id'), '=', sql.ref('m.record_id'))
    .limit(sql.lit(1));
  return { entries, record };
}

/** PostgreSQL: the list's total counted from the entries of its searched key number `lead` (drivenRows). */
function drivenCount(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, lead: number) {
  const { entries, record } = drivenRows(db, table, scope, query, lead, ['id']);
  return sql<number>`(select count(*) from (${entries}) as m cross join lateral (${record}) as r)`;
}

/**
 * The list's total counted row by row along whichever is fewer (metadataCountOf): the list
 * without its search (its own index, each row probed) or the entries (on SQLite the search as a
 * set of ids, which its planner drives from; on PostgreSQL drivenCount).
 */
function countedSql(db: Kysely<Database>, dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery, by: Exclude<MetadataCount, 'entries'>) {
  if (by === 'probe') return sql<number>`(${countSelect(db, table, scope, withMetadataProbed(query, dialect === 'postgres'))})`;
  // Keys alone over the whole list: the lead's entries, each probed for the others, and no record read (1M payments,
  // `channel=web & tier=gold`: 10k entries probed, 12 ms of CPU, where reading each record took 0.5–1.2 s, at random).
  // So too beside conditions the entries answer, tested in each entry (migration 0030; any sort: the count has no order).
  if (searchesEntriesAlone(table, scope, query)) {
    const entryTable = METADATA_ENTRY_TABLE[table as MetadataList];
    return leadEntriesCount(entryTable, scope.tenantId, searched(query), by.lead, entryConditionsSql(entryTable, query.conditions));
  }
  return dialect === 'postgres'
    ? drivenCount(db, table, scope, query, by.lead)
    : sql<number>`(${countSelect(db, table, scope, withMetadataLead(query, by.lead))})`;
}

/** The list's total as `n`, counted `by` (metadataCountOf). */
export function metadataTotalSelect(db: Kysely<Database>, dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery, by: MetadataCount) {
  if (by === 'entries') return db.selectNoFrom(matchCountSql(scope.tenantId, query).as('n'));
  return db.selectNoFrom(countedSql(db, dialect, table, scope, query, by).as('n'));
}

/** metadataPlans.ts' probeIsCheaper in SQL, over the statement's own counts (a first page: the skip is its OFFSET). */
function probeIsCheaperSql(size: Expression<number>, entries: Expression<number>, matches: Expression<number>, offset: number, perPage: number, keys: number) {
  return sql<boolean>`(${matches} > 0 and (cast(${offset} as bigint) + cast(${perPage} as bigint)) * ${size} * ${sql.lit(keys)} <= ${sql.lit(DRIVEN_ENTRY_IN_ROWS)} * ${entries} * ${matches})`;
}

/**
 * PostgreSQL: a first page of a metadata search with its total, as one named statement whose one generic plan
 * serves common and rare values alike: the probe walk and the drive are UNION ALL branches under conditions on the
 * counts (`c`, read once), checked once as a One-Time Filter (decision 0020; as rangePlanStatement.ts). The total
 * is the entry count or counted as metadataCountOf chooses. `plan` other than `counts` fixes the branch (tests);
 * not `prepared` when a range is a literal in its text (plannedQuery).
 */
export function metadataPlanPageStatement(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
  plan: 'counts' | 'probe' | 'drive',
  prepared: boolean,
) {
  const chosen = probeIsCheaperSql(sql.ref('t.size'), sql.ref('t.entries'), sql.ref('t.matches'), paging.offset, paging.perPage, searched(query).length);
  const probes = plan === 'counts' ? chosen : sql<boolean>`${sql.lit(plan === 'probe')}`;
  const order = totalOrder(query.sort);
  const columns = [...new Set(order.map((k) => k.column))];
  const walk = offsetPageSelect(db, table, scope, withMetadataProbed(query, true), paging.offset, paging.perPage)
    .select(columns as Array<'id'>)
    .where(probes);
  const byOrder = (alias: string) => sql.join(order.map((k) => sql`${sql.ref(`${alias}.${k.column}`)} ${sql.raw(k.direction)}`));
  // One drive per searched key, from whichever has the fewest entries (`lead`): the others never start.
  const drives = searched(query).map((_, lead) => {
    const { entries, record } = drivenRows(db, table, scope, query, lead, ['resource', ...columns]);
    return sql`(select r.resource, ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))} from (${entries}) as m cross join lateral (${record}) as r
    where not ${probes} and t.lead = ${sql.lit(lead)} order by ${byOrder('r')} limit (${paging.perPage} + 0) offset ${paging.offset})`;
  });
  const drivenCounts = searched(query).map((_, lead) => sql`when c.lead = ${sql.lit(lead)} then ${countedSql(db, 'postgres', table, scope, query, { lead })}`);
  const n = totalIsValueCount(scope, query)
    ? sql.ref('c.matches')
    : sql`(case when c.slice is not null and c.slice <= c.entries then ${countedSql(db, 'postgres', table, scope, query, 'probe')} ${sql.join(drivenCounts, sql` `)} end)`;
  const counts = metadataShareSelect(db, table, scope, query);
  const statement = sql`with c as materialized (${counts})
    select t.n as total, p.resource from (select c.entries, c.matches, c.lead, c.size, ${n} as n from c) as t
    left join lateral (select u.resource from ((${walk}) union all ${sql.join(drives, sql` union all `)}) as u order by ${byOrder('u')}) as p on true`;
  return flagged(statement, prepared ? { prepared: true } : {});
}
