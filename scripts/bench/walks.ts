import { setTimeout as sleep } from 'node:timers/promises';
import { writerAccounts } from './accounts.ts';
import { pageAtDepth } from './deepPages.ts';
import { getJson, serverTimeAlone, walk, type Measured, type Walk } from './scenarios.ts';
import { startWriter, type WriterStats } from './writer.ts';

/**
 * Walks by links.next, each done once with nothing else going on and once while the writer
 * creates and captures payments. Lists the writes move rows in (authorized payments, by
 * amount) are walked for at most 50 pages and set beside a cold page at 90 % depth of the same
 * per_page, measured without the writer.
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
  without: Walk;
  with?: Walk;
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
  /** The phase with the writer lasts at least this long, so its achieved rate means something. */
  minSeconds: number;
  run: (name: string, url: string) => Promise<Measured>;
  log: (line: string) => void;
}): Promise<WalksUnderWrites> {
  const { origin, key, writeKey, shapes, minSeconds, run, log } = options;
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
  const pairs: WalkPair[] = [];
  for (const shape of shapes) {
    // Once unmeasured first: the walk with the writer must not be compared with one that read a cold file.
    log(`  walk ${shape.name}, warm-up`);
    await walk(origin, shape.path, key, shape.maxPages);
    log(`  walk ${shape.name}, no writer`);
    pairs.push({ shape, without: await walk(origin, shape.path, key, shape.maxPages), cold90: cold.get(shape) });
  }
  if (!writeKey) return { pairs };

  const accounts = await writerAccounts(`${origin}/v3`, key);
  log(`  writer: 50 creates/s + 50 captures/s on ${accounts.length} active accounts`);
  const started = performance.now();
  const writer = startWriter({ origin, key: writeKey, accounts, maxSeconds: WRITER_MAX_SECONDS });
  let stats: WriterStats;
  try {
    await sleep(WRITER_WARMUP_MS);
    for (const pair of pairs) {
      log(`  walk ${pair.shape.name}, writer running`);
      pair.with = await walk(origin, pair.shape.path, key, pair.shape.maxPages);
    }
    const left = minSeconds * 1000 - (performance.now() - started);
    if (left > 0) await sleep(left);
  } finally {
    stats = await writer.stop();
  }
  log(`  writer: ${stats.created} created, ${stats.captured} captured in ${stats.seconds.toFixed(1)} s`);
  return { pairs, writer: stats };
}
