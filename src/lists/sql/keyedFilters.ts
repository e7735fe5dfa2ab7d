import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { flagged } from '../../db/driverFlags.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import { applyConditions } from './applyListQuery.ts';
import { countedTotalSelect, rangeShareSelect } from './listPageQueries.ts';
import { rangedTotalOf, type RangedTotal } from '../plan/rangedTotal.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import { countedSlice } from '../plan/listSlice.ts';
import { withoutCondition, KEYED_COUNT_CAP } from '../plan/keyedPlans.ts';
import type { KeyedCounts, KeyedCondition } from '../plan/keyedPlans.ts';

/** Reads the keyed counts in one statement: a few maintained counts, and the keyed filter's entries in its index alone, at most KEYED_COUNT_CAP + 1. */
export async function keyedCounts(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, keyed: KeyedCondition): Promise<KeyedCounts> {
  const others = withoutCondition(query, keyed);
  const slice = countedSlice(table, scope, others);
  const ranged = slice ? undefined : rangedTotalOf(table, scope, others);
  const whole = countedSlice(table, scope, { ...query, conditions: [] });
  if (!whole || !(slice || ranged)) throw new Error('keyedCounts: the list without its keyed filter is no counted slice or range of one');
  const size = slice
    ? sql<number>`(${countedTotalSelect(db, scope.tenantId, table, slice)})`
    : sql<number>`(select covered from (${rangeShareSelect(db, table, scope, ranged as RangedTotal)}) as s)`;
  const entries = applyConditions(
    db
      .selectFrom(table as 'payments')
      .select(sql<number>`1`.as('one'))
      .where('tenant_id', '=', scope.tenantId),
    { conditions: [keyed], sort: [] },
    scope.tenantId,
  ).limit(KEYED_COUNT_CAP + 1);
  const counts = db.selectNoFrom([
    size.as('size'),
    sql<number>`(${countedTotalSelect(db, scope.tenantId, table, whole)})`.as('whole'),
    sql<number>`(select count(*) from (${entries}) as e)`.as('keyed'),
  ]);
  const [row] = (await db.executeQuery<KeyedCounts>(flagged(counts, { bounded: true }).compile())).rows;
  return { keyed: Number(row.keyed), size: Number(row.size), whole: Number(row.whole) };
}
