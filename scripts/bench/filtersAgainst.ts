import type { Dataset } from './datasets.ts';
import type { FilterList } from './filters.ts';
import { median } from './median.ts';
import type { Measured } from './scenarios.ts';

/**
 * `--only filters --against <checkout>`: page 1 of each filter shape (and the unfiltered page 1)
 * on this build's server and another's, on the same dataset, alternated list by list for
 * `rounds` rounds, so that before and after meet the same neighbours. Two measures per list and
 * build: p50 under load (`hammer`, the filters table's measure) and the server's own time for one
 * request at a time (`Server-Timing: app;dur=…`, `requests` alternating single requests, median),
 * which shows a change of a few hundred µs that a loaded machine's p50 hides. `deep` adds
 * lists timed by server time only (slow deep pages, a few requests each).
 */
export interface AgainstCase {
  name: string;
  ours: Measured[];
  before: Measured[];
  oursServerMs: number[];
  beforeServerMs: number[];
}

async function serverMs(url: string, key: string): Promise<number> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const timing = /app;dur=([0-9.]+)/.exec(response.headers.get('server-timing') ?? '');
  if (!timing) throw new Error(`${url}: no Server-Timing`);
  return Number(timing[1]);
}

/** Single requests to each origin in turn: the median server time of each. */
async function alternating(urls: { ours: string; before: string }, key: string, requests: number) {
  const ours: number[] = [];
  const before: number[] = [];
  // One of each first, unmeasured: statements prepared, pages cached, on both.
  await serverMs(urls.ours, key);
  await serverMs(urls.before, key);
  for (let i = 0; i < requests; i++) {
    ours.push(await serverMs(urls.ours, key));
    before.push(await serverMs(urls.before, key));
  }
  return { ours: median(ours), before: median(before) };
}

export async function measureFiltersAgainst(
  ds: Dataset,
  origins: { ours: string; before: string },
  lists: FilterList[],
  options: {
    rounds: number;
    requests: number;
    hammer: (name: string, url: string) => Promise<Measured>;
    deep: Array<{ name: string; path: string }>;
  },
): Promise<AgainstCase[]> {
  const pages = [{ name: 'unfiltered page 1', path: '/v3/payments?page=1' }, ...lists.map((l) => ({ name: l.name, path: `/v3/payments?${l.query}&page=1` }))];
  const cases: AgainstCase[] = [...pages, ...options.deep].map((p) => ({ name: p.name, ours: [], before: [], oursServerMs: [], beforeServerMs: [] }));
  for (let round = 1; round <= options.rounds; round++) {
    for (const [i, page] of pages.entries()) {
      const c = cases[i];
      // Alternate which build goes first, round by round.
      const order = round % 2 === 1 ? (['ours', 'before'] as const) : (['before', 'ours'] as const);
      for (const who of order) c[who].push(await options.hammer(`${page.name} (${who}, round ${round})`, origins[who] + page.path));
      const timed = await alternating({ ours: origins.ours + page.path, before: origins.before + page.path }, ds.key, options.requests);
      c.oursServerMs.push(timed.ours);
      c.beforeServerMs.push(timed.before);
    }
    for (const [j, deep] of options.deep.entries()) {
      const c = cases[pages.length + j];
      const timed = await alternating({ ours: origins.ours + deep.path, before: origins.before + deep.path }, ds.key, 3);
      c.oursServerMs.push(timed.ours);
      c.beforeServerMs.push(timed.before);
    }
  }
  return cases;
}

const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '—');

export function printFiltersAgainst(ds: Dataset, cases: AgainstCase[], rounds: number, requests: number): void {
  const p50 = (ms: Measured[]) => median(ms.map((m) => m.p50));
  const [unfiltered] = cases;
  console.log(`\n### ${ds.dialect} ${ds.payments.toLocaleString('en')} payments: filter shapes, this build against another (before)\n`);
  console.log(
    `Page 1 of each list on both servers, alternated, ${rounds} rounds: p50 under load (median of the rounds' p50s, ms) and server time ` +
      `(Server-Timing, median of the rounds' medians of ${requests} single requests each in turn, ms). "÷ unfiltered": p50 ÷ the same build's unfiltered page 1.\n`,
  );
  console.log('| list | p50 before · after | ÷ unfiltered before · after | server ms before · after | server after ÷ before |');
  console.log('|---|---|---|---|---|');
  for (const c of cases) {
    const hammered = c.ours.length > 0;
    const server = `${fmt(median(c.beforeServerMs))} · ${fmt(median(c.oursServerMs))}`;
    const ratio = fmt(median(c.oursServerMs) / median(c.beforeServerMs));
    if (!hammered) {
      console.log(`| ${c.name} | — | — | ${server} | ${ratio} |`);
      continue;
    }
    const over = (ms: Measured[], base: Measured[]) => p50(ms) / p50(base);
    console.log(
      `| ${c.name} | ${fmt(p50(c.before))} · ${fmt(p50(c.ours))} | ${fmt(over(c.before, unfiltered.before))} · ${fmt(over(c.ours, unfiltered.ours))} | ${server} | ${ratio} |`,
    );
  }
}
