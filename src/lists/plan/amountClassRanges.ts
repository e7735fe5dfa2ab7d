import { amountClassRun, classEdgesAround } from '../counters/amountClassBuckets.ts';
import type { ListQuery } from '../request/parseListQuery.ts';

/** A list's `amount` range as whole numbers: `low` inclusive, `high` exclusive, either undefined when open; undefined without a range or with a bound no safe integer. */
function wholeEndsOf(query: ListQuery): { low?: number; high?: number } | undefined {
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
  return any ? { low, high } : undefined;
}

/**
 * The amount classes (lists/counters/amountClassBuckets.ts) that a list's `amount` range conditions
 * select exactly, every bound taken together as whole numbers (`gt 4999` is `gte 5000`, `lte 5000`
 * is `lt 5001`); undefined when the list has no amount range, a bound is no safe integer, or
 * the range is not a run of whole classes.
 */
export function amountClassesOfQuery(query: ListQuery): { inside: string[]; outside: string[] } | undefined {
  const ends = wholeEndsOf(query);
  return ends && amountClassRun(ends.low, ends.high);
}

/**
 * Amounts from `low` (inclusive) to `high` (exclusive), either undefined when open, whose rows a
 * descent adds (`sign` 1) to the counts of its run of classes or takes (-1) from them.
 */
export interface AmountSliver {
  low?: number;
  high?: number;
  sign: 1 | -1;
}

/** How an amount range is read from classes: the run's classes (as amountClassRun) and the slivers between its ends and the range's. */
export interface AmountClassPlan {
  inside: string[];
  outside: string[];
  slivers: AmountSliver[];
}

/** One way to meet a range's end: the class edge the run ends at there (undefined: open), the sliver between them, its width in amounts. */
interface EndChoice {
  edge?: number;
  sliver?: AmountSliver;
  width: number;
}

/**
 * The ways to meet one end of a range (`low` inclusive or `high` exclusive) with a class edge: the
 * end itself when it is one; else the edge below it or the one above, the amounts between them
 * taken from the run (the run reaches past the end) or added to it (the run stops short of it).
 */
function choicesAt(end: number, side: 'low' | 'high'): EndChoice[] {
  const { below, above } = classEdgesAround(end);
  if (below === end) return [{ edge: end, width: 0 }];
  const choices: EndChoice[] = [];
  const open = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? undefined : v);
  // The edge below: a low end's run starts there (less [below, end)); a high end's stops there (plus [below, end)).
  if (side === 'low' || Number.isFinite(below)) {
    const sliver: AmountSliver = { ...(open(below) !== undefined ? { low: below } : {}), high: end, sign: side === 'low' ? -1 : 1 };
    choices.push({ ...(open(below) !== undefined ? { edge: below } : {}), sliver, width: end - below });
  }
  // The edge above: a low end's run starts there (plus [end, above)); a high end's stops there (less [end, above)), open past the last class.
  if (side === 'high' || above !== undefined) {
    const sliver: AmountSliver = { low: end, ...(above !== undefined ? { high: above } : {}), sign: side === 'low' ? 1 : -1 };
    choices.push({ ...(above !== undefined ? { edge: above } : {}), sliver, width: above === undefined ? Infinity : above - end });
  }
  return choices;
}

/**
 * How a list's `amount` range is read from the class counts: a run of classes when its ends are class edges (at
 * most two significant digits), else the nearest run plus or less the slivers between each end and its nearer
 * edge, counted row by row per time bucket (`gte 1510`: the classes from 1501 on, less the rows of 1501–1509).
 * Undefined when there is no amount range, a bound is no safe integer, the range is empty, or its slivers would
 * be wider than the range (`gte 1510 & lt 1520`: read row by row). Decision 0024.
 */
export function amountClassPlanOfQuery(query: ListQuery): AmountClassPlan | undefined {
  const ends = wholeEndsOf(query);
  if (!ends) return undefined;
  const { low, high } = ends;
  if (low !== undefined && high !== undefined && high <= low) return undefined;
  const lows: EndChoice[] = low === undefined ? [{ width: 0 }] : choicesAt(low, 'low');
  const highs: EndChoice[] = high === undefined ? [{ width: 0 }] : choicesAt(high, 'high');
  const pairs = lows.flatMap((l) => highs.map((h) => ({ l, h, width: l.width + h.width }))).sort((a, b) => a.width - b.width);
  for (const { l, h, width } of pairs) {
    // Slivers wider than the range itself hold more rows than it: its own rows are read instead (the row-by-row ways).
    if (low !== undefined && high !== undefined && width > high - low) return undefined;
    const run = amountClassRun(l.edge, h.edge);
    if (run) return { ...run, slivers: [l.sliver, h.sliver].filter((s): s is AmountSliver => s !== undefined) };
  }
  return undefined;
}
