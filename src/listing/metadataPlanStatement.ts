import { sql, type Expression, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { PREPARED } from '../db/preparedStatements.ts';
import type { PageParams } from '../pagination/pageParams.ts';
import type { Condition, ListQuery } from '../listquery/parseListQuery.ts';
import { totalOrder } from './keyset.ts';
import { countedTotalSelect, offsetPageSelect, type ListScope, type ListTable } from './listPageQueries.ts';
import { totalIsEntryCount, withMetadataProbed } from './metadataPlans.ts';

type MetadataCondition = Extract<Condition, { match: 'metadata' }>;

/** The number of the tenant's entries of one searched key with any of its values: an index-only count over the entry table's primary key. */
function entryCountSql(tenantId: string, c: MetadataCondition) {
  const value = c.values.length === 1 ? sql`value = ${c.values[0]}` : sql`value in (${sql.join(c.values)})`;
  return sql<number>`(select count(*) from ${sql.table(c.column)} where tenant_id = ${tenantId} and key = ${c.key} and ${value})`;
}

/**
 * What a metadata search's plan is chosen from (metadataPlans.ts), as `entries` and `size`: the
 * least entry count over the searched keys, and the tenant's records in the list (list_counts).
 */
export function metadataShareSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  const counts = query.conditions.flatMap((c) => (c.match === 'metadata' ? [entryCountSql(scope.tenantId, c)] : []));
  // The least, written alike for both databases (SQLite has no least(), PostgreSQL no min() of several arguments).
  const entries =
    counts.length === 1
      ? counts[0]
      : sql<number>`(select min(n) from (${sql.join(
          counts.map((n) => sql`select ${n} as n`),
          sql` union all `,
        )}) as e)`;
  const whole = { account_id: [''], status: [''], currency: [''], card_brand: [''] };
  return db.selectNoFrom([entries.as('entries'), sql<number>`(${countedTotalSelect(db, scope.tenantId, table, whole)})`.as('size')]);
}

/** The list's total when it is the entry count of its one searched key (totalIsEntryCount), as `n`. */
export function entryCountTotalSelect(db: Kysely<Database>, scope: ListScope, query: ListQuery) {
  const [c] = query.conditions as MetadataCondition[];
  return db.selectNoFrom(entryCountSql(scope.tenantId, c).as('n'));
}

/** metadataPlans.ts' probeIsCheaper in SQL, over the statement's own counts (a first page: the skip is its OFFSET). */
export function probeIsCheaperSql(size: Expression<number>, entries: Expression<number>, offset: number, perPage: number) {
  return sql<boolean>`(${entries} > 0 and (cast(${offset} as bigint) + cast(${perPage} as bigint)) * ${size} <= ${entries} * ${entries})`;
}

/**
 * PostgreSQL: one of the first pages of a metadata search with its total, as one named statement
 * whose one generic plan serves a common value and a rare one alike. Both plans are in it as the
 * two branches of a UNION ALL (as rangePlanStatement.ts does for ranges), each under a condition
 * on the statement's counts alone, which PostgreSQL checks once ("One-Time Filter") and never
 * starts the branch it fails: the probe walk of the list's index, or the drive from the entries.
 * The counts (`c`, materialized) are read once; when the list's only condition is one metadata
 * key, its entry count is the total too, and no record is counted.
 * `plan` other than `counts` fixes the branch (tests: each plan's answers checked on their own).
 */
export function metadataPlanPageStatement(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
  total: Expression<number>,
  prepared: boolean,
  plan: 'counts' | 'probe' | 'drive',
) {
  const chosen = probeIsCheaperSql(sql.ref('t.size'), sql.ref('t.entries'), paging.offset, paging.perPage);
  const probes = plan === 'counts' ? chosen : sql<boolean>`${sql.lit(plan === 'probe')}`;
  const order = totalOrder(query.sort);
  const columns = [...new Set(order.map((k) => k.column))] as Array<'id'>;
  const branch = (written: ListQuery, runs: Expression<boolean>) =>
    offsetPageSelect(db, table, scope, written, paging.offset, paging.perPage).select(columns).where(runs);
  const walk = branch(withMetadataProbed(query), probes);
  const drive = branch(query, sql<boolean>`not ${probes}`);
  const inOrder = sql.join(order.map((k) => sql`${sql.ref(`u.${k.column}`)} ${sql.raw(k.direction)}`));
  const n = totalIsEntryCount(scope, query) ? sql.ref('c.entries') : total;
  return sql`${sql.raw(prepared ? PREPARED : '')}with c as materialized (${metadataShareSelect(db, table, scope, query)})
    select t.n as total, p.resource from (select c.entries, c.size, ${n} as n from c) as t
    left join lateral (select u.resource from ((${walk}) union all (${drive})) as u order by ${inOrder}) as p on true`;
}
