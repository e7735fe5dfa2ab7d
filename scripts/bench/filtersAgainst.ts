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

/** One build's page-1 statement of a list, as its offsetPageQuery builds it. */
type PageQueryOf = (query: string) => { sql: string; parameters: readonly unknown[] };

export interface StatementCost {
  name: string;
  /** Per call, median of the rounds: wall ms (one client, one after the other) and the backend's CPU ms. */
  before: { wallMs: number; cpuMs: number; named: boolean };
  ours: { wallMs: number; cpuMs: number; named: boolean };
}

/**
 * PostgreSQL: page 1's one statement of each list as each build sends it (named when marked
 * PREPARED, as the service's pool sends it), `calls` times one after the other on one connection
 * with the service's session settings, alternated build by build for `rounds` rounds; the
 * backend's CPU time from /proc (the server on this machine), which the machine's load hardly
 * moves: what a statement costs the database, planning included when it is planned per call.
 */
export async function measureStatementsAgainst(
  connect: () => Promise<{ query(config: { name?: string; text: string; values: unknown[] }): Promise<unknown>; backendCpuMs(): number; end(): Promise<void> }>,
  pages: { ours: PageQueryOf; before: PageQueryOf },
  lists: Array<{ name: string; query: string }>,
  options: { calls: number; rounds: number },
): Promise<StatementCost[]> {
  const client = await connect();
  try {
    const costs: StatementCost[] = [];
    for (const [i, list] of lists.entries()) {
      const runs = { ours: { wall: [] as number[], cpu: [] as number[] }, before: { wall: [] as number[], cpu: [] as number[] } };
      const named = { ours: false, before: false };
      const run = async (who: 'ours' | 'before', keep: boolean) => {
        const { sql, parameters } = pages[who](list.query);
        named[who] = sql.startsWith('/* prepared */');
        const config = { ...(named[who] ? { name: `against_${who}_${i}` } : {}), text: sql, values: [...parameters] };
        const cpu = client.backendCpuMs();
        const started = performance.now();
        for (let n = 0; n < options.calls; n++) await client.query(config);
        if (!keep) return;
        runs[who].wall.push((performance.now() - started) / options.calls);
        runs[who].cpu.push((client.backendCpuMs() - cpu) / options.calls);
      };
      await run('ours', false);
      await run('before', false);
      for (let round = 0; round < options.rounds; round++) {
        for (const who of round % 2 === 0 ? (['before', 'ours'] as const) : (['ours', 'before'] as const)) await run(who, true);
      }
      costs.push({
        name: list.name,
        before: { wallMs: median(runs.before.wall), cpuMs: median(runs.before.cpu), named: named.before },
        ours: { wallMs: median(runs.ours.wall), cpuMs: median(runs.ours.cpu), named: named.ours },
      });
    }
    return costs;
  } finally {
    await client.end();
  }
}

export function printStatementsAgainst(costs: StatementCost[], options: { calls: number; rounds: number }): void {
  const how = (c: { named: boolean }) => (c.named ? 'named' : 'unnamed');
  console.log(
    `\nPage 1's one statement alone (no key check), each build's, ${options.calls} calls one after the other per round, ${options.rounds} rounds alternated: per call, median of the rounds. Backend CPU from /proc (10 ms ticks: ±${fmt(10 / options.calls, 3)} ms).\n`,
  );
  console.log('| list | sent before · after | wall ms before · after | backend CPU ms before · after |');
  console.log('|---|---|---|---|');
  for (const c of costs) {
    console.log(`| ${c.name} | ${how(c.before)} · ${how(c.ours)} | ${fmt(c.before.wallMs, 3)} · ${fmt(c.ours.wallMs, 3)} | ${fmt(c.before.cpuMs, 3)} · ${fmt(c.ours.cpuMs, 3)} |`);
  }
}
