import { sql } from 'kysely';
import type { Condition } from '../request/parseListQuery.ts';
import { RANGE_SQL } from './applyListQuery.ts';
import { testedInEntries } from '../plan/testedInEntries.ts';

/**
 * The conditions testedInEntries accepts, as ` and …` tests of the entry row under its table's own
 * name (as entryOrderPage.ts and leadEntries.ts walk it); the others are left out.
 */
export function entryConditionsSql(entryTable: string, conditions: readonly Condition[]) {
  const e = (column: string) => sql.ref(`${entryTable}.${column}`);
  const tests = conditions.flatMap((c) => {
    if (!testedInEntries(entryTable, c)) return [];
    if (c.match === 'in') return [sql` and ${e(c.column)} in (${sql.join(c.values)})`];
    if (c.match === 'range') return [sql` and ${e(c.column)} ${sql.raw(RANGE_SQL[c.op])} ${c.value}`];
    return [];
  });
  return sql.join(tests, sql``);
}
