import type { Dataset } from './datasets.ts';
import { pageAtDepth } from './deepPages.ts';
import { median } from './median.ts';
import { getJson, type Measured } from './scenarios.ts';

/**
 * `--only filters`: page 1 and the page at 90 % depth of each filter shape issue 31 names, on
 * the service and on the floor (the same list written as count(*) + OFFSET, floor/floorServer.ts),
 * with the two ratios it sets targets for: page at 90 % ÷ page 1 of the same list, and page 1 of
 * the filtered list ÷ page 1 of the unfiltered one (both ≤ 2, by p50).
 */
export interface FilterList {
  /** The filter shape, and the sort when it is not the default. */
  name: string;
  query: string;
}

/**
 * A list slower than the run is long answers nothing within it at concurrency 16 (autocannon
 * counts only what completed): it is then timed alone, a few requests one after the other,
 * and marked so (`alone`), rps being 1 ÷ that p50.
 */
type Timed = Measured & { alone?: boolean };

const TIMES_ALONE = 3;

const FAILED: Timed = { rps: 0, p50: Number.NaN, p99: Number.NaN, errors: 1 };

async function timedAlone(url: string, key: string): Promise<Timed> {
  const ms: number[] = [];
  let errors = 0;
  for (let i = 0; i < TIMES_ALONE; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    ms.push(performance.now() - started);
    if (!response.ok) errors += 1;
  }
  ms.sort((a, b) => a - b);
  const p50 = Math.round(ms[Math.floor(TIMES_ALONE / 2)] * 100) / 100;
  return { rps: 1000 / p50, p50, p99: Math.round(ms[TIMES_ALONE - 1] * 100) / 100, errors, alone: true };
}

export interface FilterCase extends FilterList {
  /** Why the list was not measured (its page 1 failed every try), the rest of the run going on. */
  failed?: string;
  total: number;
  page90: number;
  ours: { page1: Timed; page90: Timed };
  floor?: { page1: Timed; page90: Timed; sameAnswer: boolean };
  /**
   * Measured in alternating rounds (unfiltered page 1, page 1, page at 90 %, again): the medians
   * of each round's own ratios, so a writer's bursts meet all three alike.
   */
  rounds?: { count: number; deep: number; filtered: number };
}

export interface FiltersResult {
  dialect: string;
  payments: number;
  /** Page 1 of the unfiltered list, measured first and last (the noise between them shows). */
  unfiltered: { first: Timed; last: Timed; floor?: Timed };
  cases: FilterCase[];
}

/** Values that select about what the issue's table measured: a month of the six the seed spreads over, amounts in minor units. */
export interface ShapeValues {
  busiestAccount: string;
  month: { gte: string; lt: string };
  /** The last four digits of a card the busiest account pays with (the seed reuses an account's cards). */
  card: string;
}

/**
 * Each filter alone, a month, a month × status and an amount range × currency; with the default
 * sort, and those with a range with that range's column as sort as well (the month with
 * -created_at, created_at being the default).
 */
export function filterLists({ busiestAccount, month, card }: ShapeValues): FilterList[] {
  const monthQuery = `filter[created_at][gte]=${month.gte}&filter[created_at][lt]=${month.lt}`;
  const ranged = [
    { name: 'a month', query: monthQuery, sort: '-created_at' },
    { name: 'filter[amount][gte]=1000', query: 'filter[amount][gte]=1000', sort: 'amount' },
    { name: 'a month × filter[status]=succeeded', query: `${monthQuery}&filter[status]=succeeded`, sort: '-created_at' },
    { name: 'filter[amount][gte]=1000&[lt]=10000 × filter[currency]=EUR', query: 'filter[amount][gte]=1000&filter[amount][lt]=10000&filter[currency]=EUR', sort: 'amount' },
  ];
  // Amount ranges on one-significant-digit ends (amountClassBuckets.ts: placed by the classes'
  // created_at buckets since migration 0022, row by row before), one on no class edge (row by row
  // still), and a selective one (a fraction of a percent of the rows), default sort.
  const amountClasses = [
    { name: 'filter[amount][gte]=5000', query: 'filter[amount][gte]=5000' },
    { name: 'filter[amount][gte]=1000&[lte]=5000 × filter[currency]=EUR', query: 'filter[currency]=EUR&filter[amount][gte]=1000&filter[amount][lte]=5000' },
    { name: 'filter[amount][gt]=2000', query: 'filter[amount][gt]=2000' },
    { name: 'filter[amount][gte]=1500 (no class edge)', query: 'filter[amount][gte]=1500' },
    // The seed's amounts run from 100 up; 100 itself is ~0.06 % of the payments.
    { name: 'filter[amount][lte]=100 (selective)', query: 'filter[amount][lte]=100' },
  ];
  // Metadata search (issue 31 item 4): a common value (a fifteenth of the payments: the seed gives a
  // fifth a `channel` of three), the same × a status sorted by amount, a rare value (the seed gives
  // about 1 % `tier=gold`, seedRows.ts) and two keys (`channel=web` and `tier=gold`: ~0.07 %).
  const metadata = [
    { name: 'filter[metadata][channel]=web', query: 'filter[metadata][channel]=web' },
    { name: 'filter[metadata][channel]=web,pos × filter[status]=succeeded, sort=-amount', query: 'filter[metadata][channel]=web,pos&filter[status]=succeeded&sort=-amount' },
    { name: 'filter[metadata][tier]=gold (rare)', query: 'filter[metadata][tier]=gold' },
    { name: 'filter[metadata][channel]=web&[tier]=gold (two keys)', query: 'filter[metadata][channel]=web&filter[metadata][tier]=gold' },
    // Several values in created_at order, one value in amount order, and a status beside a currency (migration 0032: in the entries).
    { name: 'filter[metadata][channel]=web,pos', query: 'filter[metadata][channel]=web,pos' },
    { name: 'filter[metadata][channel]=web, sort=-amount', query: 'filter[metadata][channel]=web&sort=-amount' },
    { name: 'filter[metadata][channel]=web × filter[status]=succeeded,failed × filter[currency]=EUR', query: 'filter[metadata][channel]=web&filter[status]=succeeded,failed&filter[currency]=EUR' },
  ];
  // A card's last four digits (keyedFilters.ts: its own index, chosen by the counts on SQLite),
  // with a status, sorted by amount, and under an amount range.
  const cards = [
    { name: 'filter[card_last4]=<a card> × filter[status]=succeeded', query: `filter[card_last4]=${card}&filter[status]=succeeded` },
    { name: 'filter[card_last4]=<a card>, sort=-amount', query: `filter[card_last4]=${card}&sort=-amount` },
    { name: 'filter[card_last4]=<a card> × filter[amount][gte]=1000', query: `filter[card_last4]=${card}&filter[amount][gte]=1000` },
  ];
  // Two or three dimensions beside a range, which no bucket counts cover (valuePlans.ts on PostgreSQL,
  // leadDimension.ts on SQLite, migrations 0028–0029: counted in one index alone), and a metadata
  // value beside a currency, card brands or an amount range (migration 0030: counted and paged in its entries).
  const combinations = [
    { name: 'a month × filter[status]=succeeded × filter[currency]=EUR', query: `${monthQuery}&filter[status]=succeeded&filter[currency]=EUR` },
    {
      name: 'filter[card_brand]=visa × filter[status]=failed × filter[amount][gte]=1000, sort=amount',
      query: 'filter[card_brand]=visa&filter[status]=failed&filter[amount][gte]=1000&sort=amount',
    },
    { name: 'filter[metadata][channel]=web × filter[currency]=EUR', query: 'filter[metadata][channel]=web&filter[currency]=EUR' },
    { name: 'filter[metadata][channel]=web × filter[amount][gte]=1000', query: 'filter[metadata][channel]=web&filter[amount][gte]=1000' },
    { name: 'filter[metadata][channel]=web × filter[card_brand]=visa,amex', query: 'filter[metadata][channel]=web&filter[card_brand]=visa,amex' },
  ];
  return [
    { name: 'filter[status]=succeeded', query: 'filter[status]=succeeded' },
    { name: 'filter[currency]=EUR', query: 'filter[currency]=EUR' },
    { name: 'filter[card_brand]=visa', query: 'filter[card_brand]=visa' },
    { name: 'filter[account_id]=<busiest account>', query: `filter[account_id]=${busiestAccount}` },
    ...ranged.flatMap(({ name, query, sort }) => [
      { name, query },
      { name: `${name}, sort=${sort}`, query: `${query}&sort=${sort}` },
    ]),
    ...amountClasses,
    ...metadata,
    ...cards,
    ...combinations,
  ];
}

/** The last four digits of the newest card the account paid with. */
export async function cardOf(base: string, key: string, account: string): Promise<string> {
  return (await getJson(`${base}/payments?filter[account_id]=${account}&per_page=1`, key)).data[0].card.last4 as string;
}

/** The calendar month (UTC) three months before the newest payment's: inside the seeded months, a sixth of the rows. */
export async function monthOfData(base: string, key: string): Promise<ShapeValues['month']> {
  const newest = (await getJson(`${base}/payments?sort=-created_at&per_page=1`, key)).data[0].created_at as string;
  const at = new Date(newest);
  const first = (monthsBack: number) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - monthsBack, 1)).toISOString();
  return { gte: first(3), lt: first(2) };
}

export const listUrl = (origin: string, query: string, page: number) => `${origin}/v3/payments?${query}&page=${page}`;

/**
 * Tries at reading a list's page 1 before it counts as failed: the first read of a shape on a
 * dataset just built can outlast the statement time limit (503) while it pulls its rows from disk
 * (a two-key metadata search on the 10M SQLite file did), and warms them for the next.
 */
const DEPTH_TRIES = 3;

/** The page at 90 % of a list (per_page 10) and its total, from its page 1. */
export async function depthOf(origin: string, query: string, key: string): Promise<{ total: number; lastPage: number; page90: number }> {
  for (let tried = 1; ; tried++) {
    try {
      const meta = (await getJson(listUrl(origin, query, 1), key)).meta;
      return { total: meta.total, lastPage: meta.last_page, page90: pageAtDepth(meta.last_page, '90 %') };
    } catch (error) {
      if (tried >= DEPTH_TRIES) throw error;
    }
  }
}

/** Whether two servers answer the same total and the same rows for each of `pages` of a list. */
export async function sameAnswers(origins: [string, string], query: string, pages: number[], key: string): Promise<boolean> {
  const rowsOf = async (origin: string, page: number) => {
    const body = await getJson(listUrl(origin, query, page), key);
    return JSON.stringify([body.meta.total, body.data.map((r: { id: string }) => r.id)]);
  };
  for (const page of pages) if ((await rowsOf(origins[0], page)) !== (await rowsOf(origins[1], page))) return false;
  return true;
}

/**
 * Hammers each list's page 1 and page at 90 % (per_page 10, pages from meta.total) on the
 * service, then on the floor when one is given, case by case so a noisy neighbour hurts both alike.
 */
export async function measureFilters(
  ds: Dataset,
  origins: { ours: string; floor?: string },
  lists: FilterList[],
  hammer: (name: string, url: string) => Promise<Measured>,
  rounds = 1,
): Promise<FiltersResult> {
  const measure = async (name: string, url: string): Promise<Timed> => {
    const measured = await hammer(name, url);
    return Number.isNaN(measured.p50) ? timedAlone(url, ds.key) : measured;
  };
  /** `rounds` rounds of unfiltered page 1, the list's page 1 and its page at 90 %, one after the other. */
  const inRounds = async (list: FilterList, page90: number, lastPage: number) => {
    const taken: Array<{ unfiltered: Timed; page1: Timed; page90: Timed }> = [];
    for (let round = 1; round <= rounds; round++) {
      const at = `, round ${round}`;
      taken.push({
        unfiltered: await measure(`unfiltered page 1${at}`, `${origins.ours}/v3/payments?page=1`),
        page1: await measure(`${list.name}: page 1${at}`, listUrl(origins.ours, list.query, 1)),
        page90: await measure(`${list.name}: page ${page90} of ${lastPage}${at}`, listUrl(origins.ours, list.query, page90)),
      });
    }
    const middle = (pick: (t: (typeof taken)[number]) => Timed): Timed => ({
      rps: median(taken.map((t) => pick(t).rps)),
      p50: median(taken.map((t) => pick(t).p50)),
      p99: median(taken.map((t) => pick(t).p99)),
      errors: taken.reduce((n, t) => n + pick(t).errors, 0),
    });
    return {
      ours: { page1: middle((t) => t.page1), page90: middle((t) => t.page90) },
      rounds: {
        count: rounds,
        deep: median(taken.map((t) => t.page90.p50 / t.page1.p50)),
        filtered: median(taken.map((t) => t.page1.p50 / t.unfiltered.p50)),
      },
    };
  };
  const unfilteredFirst = await measure('unfiltered page 1', `${origins.ours}/v3/payments?page=1`);
  const unfilteredFloor = origins.floor ? await measure('unfiltered page 1 (the floor)', `${origins.floor}/v3/payments?page=1`) : undefined;
  const cases: FilterCase[] = [];
  for (const list of lists) {
    const depth = await depthOf(origins.ours, list.query, ds.key).catch((error: Error) => error);
    if (depth instanceof Error) {
      cases.push({ ...list, failed: depth.message, total: 0, page90: 0, ours: { page1: FAILED, page90: FAILED } });
      continue;
    }
    const { total, lastPage, page90 } = depth;
    // The floor answers the same total and the same rows, or the comparison is void (marked in the table).
    const sameAnswer = (floor: string) => sameAnswers([origins.ours, floor], list.query, [1, page90], ds.key);
    const both = async (origin: string, who: string) => ({
      page1: await measure(`${list.name}: page 1${who}`, listUrl(origin, list.query, 1)),
      page90: await measure(`${list.name}: page ${page90} of ${lastPage}${who}`, listUrl(origin, list.query, page90)),
    });
    if (rounds > 1) {
      cases.push({ ...list, total, page90, ...(await inRounds(list, page90, lastPage)) });
      continue;
    }
    cases.push({
      ...list,
      total,
      page90,
      ours: await both(origins.ours, ''),
      floor: origins.floor ? { ...(await both(origins.floor, ' (the floor)')), sameAnswer: await sameAnswer(origins.floor) } : undefined,
    });
  }
  const unfilteredLast = await measure('unfiltered page 1, again', `${origins.ours}/v3/payments?page=1`);
  return { dialect: ds.dialect, payments: ds.payments, unfiltered: { first: unfilteredFirst, last: unfilteredLast, floor: unfilteredFloor }, cases };
}

const fmt = (x: number, digits = 0) => x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const cell = (m: Timed) => `${m.alone ? `(alone) ${fmt(m.rps, 1)}` : fmt(m.rps)} · ${m.p50}${m.errors ? ` · ${m.errors} errors` : ''}`;
/** A ratio against the issue's target of 2. */
const verdict = (r: number) => `${fmt(r, 2)} ${r <= 2 ? '✓' : '✗'}`;
/** A ratio of p50s against the issue's target of 2. */
const ratio = (a: Measured, b: Measured) => verdict(a.p50 / b.p50);

export function printFilters(result: FiltersResult): void {
  const { unfiltered } = result;
  const base = unfiltered.first.p50 <= unfiltered.last.p50 ? unfiltered.first : unfiltered.last;
  const rounds = result.cases.find((c) => c.rounds)?.rounds;
  console.log(`\n### ${result.dialect} ${fmt(result.payments)} payments: filter shapes (issue 31)\n`);
  console.log(
    `req/s · p50 (ms), per_page=10, concurrency as asked; "(alone)": nothing answered within the run, timed alone, ${TIMES_ALONE} requests one after the other. Unfiltered page 1: ${cell(unfiltered.first)} first, ${cell(unfiltered.last)} last (${rounds ? `the ratios: the median of ${rounds.count} alternating rounds' own (unfiltered page 1, page 1, page at 90 %); the p50s: the rounds' median` : 'the ratios use the lower p50'})` +
      `${unfiltered.floor ? `; on the floor ${cell(unfiltered.floor)}` : ''}. Targets: 90 % ÷ page 1 ≤ 2 and page 1 ÷ unfiltered page 1 ≤ 2 (p50).\n`,
  );
  const floorHead = result.cases.some((c) => c.floor) ? ' floor page 1 | floor 90 % | ours ÷ floor, page 1 · 90 % (p50) |' : '';
  console.log(`| list | total | page 1 | page at 90 % | 90 % ÷ page 1 | page 1 ÷ unfiltered page 1 |${floorHead}`);
  console.log(`|---|---|---|---|---|---|${floorHead ? '---|---|---|' : ''}`);
  for (const c of result.cases) {
    if (c.failed) {
      console.log(`| ${c.name} | page 1 failed ${DEPTH_TRIES} times: ${c.failed} | | | | |${floorHead ? ' | | |' : ''}`);
      continue;
    }
    const floor = c.floor
      ? ` ${cell(c.floor.page1)} | ${cell(c.floor.page90)} | ${fmt(c.ours.page1.p50 / c.floor.page1.p50, 2)} · ${fmt(c.ours.page90.p50 / c.floor.page90.p50, 2)}${c.floor.sameAnswer ? '' : ' (the floor answered otherwise!)'} |`
      : '';
    console.log(
      c.rounds
        ? `| ${c.name} | ${fmt(c.total)} | ${cell(c.ours.page1)} | ${cell(c.ours.page90)} (page ${fmt(c.page90)}) | ${verdict(c.rounds.deep)} | ${verdict(c.rounds.filtered)} |`
        : `| ${c.name} | ${fmt(c.total)} | ${cell(c.ours.page1)} | ${cell(c.ours.page90)} (page ${fmt(c.page90)}) | ${ratio(c.ours.page90, c.ours.page1)} | ${ratio(c.ours.page1, base)} |${floor}`,
    );
  }
}
