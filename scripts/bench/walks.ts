import { setTimeout as sleep } from 'node:timers/promises';
import { writerAccounts } from './accounts.ts';
import { pageAtDepth } from './deepPages.ts';
import { getJson, serverTimeAlone, walk, type Measured, type Walk } from './scenarios.ts';
import { startWriter, type WriterStats } from './writer.ts';

/**
 * Walks by links.next, each done in rounds: once with nothing else going on, then at once again
 * while the writer creates and captures payments. The ratio of a shape is the median of its
 * rounds' ratios (server time per page, with ÷ without): the two walks of a round are minutes
 * apart at most, so a neighbour's load on this shared machine weighs on both alike, which one
 * pass of all walks without and then all walks with the writer did not ensure. Lists the
 * writes move rows in (authorized payments, by amount) are walked for at most 50 pages and set
 * beside a cold page at 90 % depth of the same per_page, measured without the writer.
 */
export interface WalkShape {
  name: string;
  path: string;
  maxPages?: number;
  /** Writes move rows in this list: also measure its cold 90 % page. */
  moving?: boolean;
}

export function walkShapes(busiestAccount: string): WalkShape[] {
  return [
    { name: 'all payments, per_page=5000', path: '/v3/payments?per_page=5000' },
    { name: 'filter[account_id]=<busiest account>, per_page=100', path: `/v3/payments?filter[account_id]=${busiestAccount}&per_page=100` },
    { name: 'filter[status]=authorized, per_page=100, ≤ 50 pages', path: '/v3/payments?filter[status]=authorized&per_page=100', maxPages: 50, moving: true },
    { name: 'sort=-amount, per_page=1000, ≤ 50 pages', path: '/v3/payments?sort=-amount&per_page=1000', maxPages: 50, moving: true },
  ];
}

export interface ColdPage {
  page: number;
  lastPage: number;
  measured: Measured;
  /** Median Server-Timing of the page requested alone (no concurrency). */
  serverMs: number;
}

export interface WalkPair {
  shape: WalkShape;
  /** The first round's walks (the table shows them; the row count of the first is checked). */
  without: Walk;
  with?: Walk;
  /** Every round, in order. */
  rounds: { without: Walk; with?: Walk }[];
  /** Median over the rounds of server ms per page with the writer ÷ without; undefined without a writer. */
  ratio?: number;
  /** The smallest and largest of the rounds' ratios. */
  ratioRange?: [number, number];
  cold90?: ColdPage;
}

export interface WalksUnderWrites {
  pairs: WalkPair[];
  writer?: WriterStats;
}

/** The writer's own cap: it stops by itself this long after starting even if the phase has not ended. */
const WRITER_MAX_SECONDS = 900;
const SETTLE_MS = 2000;
/** Writes flow (and captures have payments to take) before the first walk starts. */
const WRITER_WARMUP_MS = 1000;

export async function walksUnderWrites(options: {
  origin: string;
  key: string;
  /** A key with scope write; without it the writer phase is skipped. */
  writeKey?: string;
  shapes: WalkShape[];
  /** The writer runs at least this long per shape (over its rounds), so its achieved rate means something. */
  minSeconds: number;
  /** Rounds of (walk without, walk with the writer) per shape; the ratio is their median. */
  rounds?: number;
  run: (name: string, url: string) => Promise<Measured>;
  log: (line: string) => void;
}): Promise<WalksUnderWrites> {
  const { origin, key, writeKey, shapes, minSeconds, run, log, rounds: roundCount = 3 } = options;
  // Cold pages first: a walk leaves behind what could make them warm.
  const cold = new Map<WalkShape, ColdPage>();
  for (const shape of shapes.filter((s) => s.moving)) {
    const lastPage = (await getJson(origin + shape.path, key)).meta.last_page as number;
    const page = pageAtDepth(lastPage, '90 %');
    const url = `${origin}${shape.path}&page=${page}`;
    cold.set(shape, { page, lastPage, measured: await run(`cold 90 % page of ${shape.name} (page ${page} of ${lastPage})`, url), serverMs: await serverTimeAlone(url, key) });
  }
  // Requests autocannon left in flight finish before the first walk is timed.
  await sleep(SETTLE_MS);
  const accounts = writeKey ? await writerAccounts(`${origin}/v3`, key) : [];
  if (writeKey) log(`  writer: 50 creates/s + 50 captures/s on ${accounts.length} active accounts, in each round's second walk`);
  const perPage = (w: Walk) => w.serverSeconds / w.pages;
  const pairs: WalkPair[] = [];
  const writerRuns: WriterStats[] = [];
  for (const shape of shapes) {
    // Once unmeasured first: the walk with the writer must not be compared with one that read a cold file.
    log(`  walk ${shape.name}, warm-up`);
    await walk(origin, shape.path, key, shape.maxPages);
    const rounds: WalkPair['rounds'] = [];
    for (let round = 1; round <= (writeKey ? roundCount : 1); round++) {
      log(`  walk ${shape.name}, round ${round}, no writer`);
      const without = await walk(origin, shape.path, key, shape.maxPages);
      if (!writeKey) {
        rounds.push({ without });
        break;
      }
      log(`  walk ${shape.name}, round ${round}, writer running`);
      const started = performance.now();
      const writer = startWriter({ origin, key: writeKey, accounts, maxSeconds: WRITER_MAX_SECONDS });
      let withWriter: Walk;
      try {
        await sleep(WRITER_WARMUP_MS);
        withWriter = await walk(origin, shape.path, key, shape.maxPages);
        // The writer runs at least minSeconds per shape, split over its rounds, so its achieved rate means something.
        const left = (minSeconds * 1000) / roundCount - (performance.now() - started);
        if (left > 0) await sleep(left);
      } finally {
        writerRuns.push(await writer.stop());
      }
      rounds.push({ without, with: withWriter });
      await sleep(SETTLE_MS);
    }
    const ratios = rounds.filter((r) => r.with).map((r) => perPage(r.with!) / perPage(r.without)).sort((x, y) => x - y);
    pairs.push({
      shape,
      without: rounds[0].without,
      with: rounds[0].with,
      rounds,
      ratio: ratios.length ? ratios[Math.floor(ratios.length / 2)] : undefined,
      ratioRange: ratios.length ? [ratios[0], ratios[ratios.length - 1]] : undefined,
      cold90: cold.get(shape),
    });
  }
  if (!writeKey) return { pairs };
  const stats = combineWriterRuns(writerRuns);
  log(`  writer: ${stats.created} created, ${stats.captured} captured in ${stats.seconds.toFixed(1)} s over ${writerRuns.length} runs`);
  return { pairs, writer: stats };
}

/** The writer's runs as one: counts and time added; p50 the median of the runs' p50s, p99 the largest p99. */
function combineWriterRuns(runs: WriterStats[]): WriterStats {
  const sum = (f: (s: WriterStats) => number) => runs.reduce((total, s) => total + f(s), 0);
  const failures: Record<string, number> = {};
  for (const run of runs) for (const [kind, count] of Object.entries(run.failures)) failures[kind] = (failures[kind] ?? 0) + count;
  const seconds = sum((s) => s.seconds);
  const p50s = runs.map((s) => s.latencyP50).sort((x, y) => x - y);
  return {
    seconds,
    createsPerSecond: sum((s) => s.created) / seconds,
    capturesPerSecond: sum((s) => s.captured) / seconds,
    created: sum((s) => s.created),
    createFailures: sum((s) => s.createFailures),
    captured: sum((s) => s.captured),
    partialCaptures: sum((s) => s.partialCaptures),
    captureFailures: sum((s) => s.captureFailures),
    failures,
    behind: { creates: sum((s) => s.behind.creates), captures: sum((s) => s.behind.captures) },
    latencyP50: p50s[Math.floor(p50s.length / 2)] ?? NaN,
    latencyP99: Math.max(...runs.map((s) => s.latencyP99)),
  };
}
