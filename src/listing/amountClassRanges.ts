import { amountClassRun } from '../counts/amountClassBuckets.ts';
import type { ListQuery } from '../listquery/parseListQuery.ts';

/**
 * The amount classes (counts/amountClassBuckets.ts) that a list's `amount` range conditions
 * select exactly, every bound taken together as whole numbers (`gt 4999` is `gte 5000`, `lte 5000`
 * is `lt 5001`); undefined when the list has no amount range, a bound is no safe integer, or
 * the range is not a run of whole classes.
 */
export function amountClassesOfQuery(query: ListQuery): { inside: string[]; outside: string[] } | undefined {
  let low: number | undefined;
  let high: number | undefined;
  let any = false;
  for (const c of query.conditions) {
    if (c.match !== 'range' || c.column !== 'amount') continue;
    if (typeof c.value !== 'number' || !Number.isSafeInteger(c.value)) return undefined;
    any = true;
    if (c.op === 'gte' || c.op === 'gt') {
      const from = c.op === 'gte' ? c.value : c.value + 1;
      low = low === undefined ? from : Math.max(low, from);
    } else {
      const to = c.op === 'lt' ? c.value : c.value + 1;
      high = high === undefined ? to : Math.min(high, to);
    }
  }
  return any ? amountClassRun(low, high) : undefined;
}
