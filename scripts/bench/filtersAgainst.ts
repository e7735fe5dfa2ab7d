import type { Dataset } from './datasets.ts';
import { depthOf, listUrl, sameAnswers, type FilterList } from './filters.ts';
import { median } from './median.ts';
import { serverMsOf, type Measured } from './scenarios.ts';
import { processSeconds } from './writes.ts';
import pg from 'pg';

/**
 * `--only filters --against <checkout>`: each filter shape's page 1 and page at 90 % on this
 * build and on another one (`before`), both serving the same dataset, side by side: the server's
 * own time (Server-Timing) of single requests alternating between the two, and the p50 of each
 * hammered at the run's concurrency, alternating run by run. On a shared, noisy machine the
 * alternation puts the noise on both alike; a ratio of the same build's two pages is what the
 * issue's target is stated in. The two answers are compared (total and ids) before timing.
 * Beside the times, the CPU each hammered run cost per request it answered: the server process's
 * (all its threads) and, on PostgreSQL, its database's backends' (the other build's are idle
 * meanwhile), which the p50 of a run that saturates two cores follows.
 */
export interface AgainstCase {
  name: string;
  page90: number;
  /** Per page (1, 90 %): the medians of the alternated server times and of the hammered p50s. */
  ours: { page1: Sides; page90: Sides };
  before: { page1: Sides; page90: Sides };
  sameAnswer: boolean;
}

interface Sides {
  serverMs: number;
  p50: number;
  /** CPU ms per request of the hammered runs (server process + database backends). */
  cpuMs: number;
}

/** CPU seconds so far of a server and, on PostgreSQL, of every backend connected to its database but this probe's. */
async function cpuSeconds(pid: number, ds: Dataset): Promise<number> {
  if (ds.dialect !== 'postgres') return processSeconds(pid);
  const client = new pg.Client({ connectionString: ds.url });
  await client.connect();
  try {
    const { rows } = await client.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return rows.reduce((sum, r) => sum + processSeconds(r.pid as number), processSeconds(pid));
  } finally {
    await client.end();
  }
}

async function serverMs(url: string, key: string): Promise<number> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return serverMsOf(response);
}

export async function measureFiltersAgainst(
  ds: Dataset,
  origins: { ours: string; before: string },
  pids: { ours: number; before: number },
  lists: FilterList[],
  options: { requests: number; rounds: number; seconds: number; hammer: (name: string, url: string) => Promise<Measured> },
): Promise<AgainstCase[]> {
  const cases: AgainstCase[] = [];
  for (const list of lists) {
    const { page90 } = await depthOf(origins.ours, list.query, ds.key);
    const sameAnswer = await sameAnswers([origins.ours, origins.before], list.query, [1, page90], ds.key);
    const timed = { ours: { page1: [] as number[], page90: [] as number[] }, before: { page1: [] as number[], page90: [] as number[] } };
    const hammered = { ours: { page1: [] as number[], page90: [] as number[] }, before: { page1: [] as number[], page90: [] as number[] } };
    const cpu = { ours: { page1: [] as number[], page90: [] as number[] }, before: { page1: [] as number[], page90: [] as number[] } };
    for (const [which, page] of [
      ['page1', 1],
      ['page90', page90],
    ] as const) {
      for (let i = 0; i < options.requests; i++) {
        // Which goes first alternates too, so neither always follows the other.
        const order = i % 2 === 0 ? (['ours', 'before'] as const) : (['before', 'ours'] as const);
        for (const who of order) timed[who][which].push(await serverMs(listUrl(origins[who], list.query, page), ds.key));
      }
      for (let round = 0; round < options.rounds; round++) {
        for (const who of ['ours', 'before'] as const) {
          const cpuBefore = await cpuSeconds(pids[who], ds);
          const m = await options.hammer(`${list.name}: page ${page} (${who}, round ${round + 1})`, listUrl(origins[who], list.query, page));
          const cpuAfter = await cpuSeconds(pids[who], ds);
          hammered[who][which].push(m.p50);
          cpu[who][which].push(((cpuAfter - cpuBefore) * 1000) / (m.rps * options.seconds));
        }
      }
    }
    const sides = (who: 'ours' | 'before', which: 'page1' | 'page90') => ({
      serverMs: median(timed[who][which]),
      p50: median(hammered[who][which]),
      cpuMs: median(cpu[who][which]),
    });
    cases.push({
      name: list.name,
      page90,
      ours: { page1: sides('ours', 'page1'), page90: sides('ours', 'page90') },
      before: { page1: sides('before', 'page1'), page90: sides('before', 'page90') },
      sameAnswer,
    });
  }
  return cases;
}

const fmt = (x: number, digits = 2) => x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function printFiltersAgainst(ds: Dataset, cases: AgainstCase[], options: { requests: number; rounds: number }): void {
  console.log(`\n### ${ds.dialect} ${ds.payments.toLocaleString('en')} payments: filter shapes, before → this build, side by side\n`);
  console.log(
    `Server-Timing ms, median of ${options.requests} requests alternating between the builds; p50 ms hammered, median of ${options.rounds} alternating runs; CPU ms per request of those runs (server process${ds.dialect === 'postgres' ? ' + database backends' : ''}). 90 % ÷ page 1 of each build (target ≤ 2).\n`,
  );
  console.log(
    '| list | page 1, server ms | page at 90 %, server ms | 90 % ÷ page 1, server | page 1, p50 | page at 90 %, p50 | 90 % ÷ page 1, p50 | page 1, CPU ms | page at 90 %, CPU ms | 90 % ÷ page 1, CPU |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cases) {
    const pair = (pick: (s: { page1: Sides; page90: Sides }) => number) => `${fmt(pick(c.before))} → ${fmt(pick(c.ours))}`;
    console.log(
      `| ${c.name}${c.sameAnswer ? '' : ' (the builds answered otherwise!)'} | ${pair((s) => s.page1.serverMs)} | ${pair((s) => s.page90.serverMs)} (page ${c.page90.toLocaleString('en')}) | ${pair((s) => s.page90.serverMs / s.page1.serverMs)} | ${pair((s) => s.page1.p50)} | ${pair((s) => s.page90.p50)} | ${pair((s) => s.page90.p50 / s.page1.p50)} | ${pair((s) => s.page1.cpuMs)} | ${pair((s) => s.page90.cpuMs)} | ${pair((s) => s.page90.cpuMs / s.page1.cpuMs)} |`,
    );
  }
}
