import { readFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { createGunzip, createZstdDecompress } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { walk, type Walk } from './scenarios.ts';
import { pollHealth, summarizeLatencies, type HealthLatencies } from './healthPoller.ts';

/**
 * Exports against walking the same list: all payments as NDJSON and as CSV, each timed, the
 * server's RSS sampled meanwhile, /health polled every ~10 ms meanwhile (from a worker thread); then the same list
 * walked by links.next at per_page=5000, in the same run on the same server.
 */
export interface ExportRun {
  format: 'NDJSON' | 'CSV';
  seconds: number;
  rows: number;
  /** Bytes of the body once decoded. */
  bytes: number;
  /** The Content-Encoding it came with (asked for as fetch does, `gzip, deflate`, or `zstd`, or `identity`). */
  encoding: string;
  /** Peak VmRSS of the server during the export, over its idle VmRSS before the first export (MB). */
  rssOverIdleMb: number;
  /** The RSS of this export's own server before it (MB). */
  idleRssMb: number;
  health: HealthLatencies;
}

export interface ExportsResult {
  idleRssMb: number;
  runs: ExportRun[];
  walk: Walk;
  /** Peak VmRSS of the server during the walk, over the same idle VmRSS (MB): what serving 5000-row pages grows it by. */
  walkRssOverIdleMb: number;
}

const RSS_SAMPLE_MS = 20;

/** The server process's resident set (MB), from /proc (Linux). */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** Samples something until stopped: the RSS peak, the /health latencies. */
function sampleWhile<T>(every: number, sample: () => Promise<T> | T) {
  const samples: T[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      samples.push(await sample());
      await sleep(every);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return samples;
    },
  };
}

/**
 * GET with an Accept-Encoding (fetch's own, `gzip, deflate`, is what the walk's pages are asked
 * with), the body decoded as it comes: node:http and zlib, which read faster than fetch's web streams.
 */
function exportBody(url: string, key: string, accept: string, acceptEncoding: string): Promise<{ response: IncomingMessage; body: AsyncIterable<Buffer> }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { authorization: `Bearer ${key}`, accept, 'accept-encoding': acceptEncoding } }, (response) => {
      const encoding = response.headers['content-encoding'];
      const body = encoding === 'gzip' ? response.pipe(createGunzip()) : encoding === 'zstd' ? response.pipe(createZstdDecompress()) : response;
      resolve({ response, body });
    }).on('error', reject);
  });
}

/** One export, read as fast as this process can; lines counted (less the CSV header and the NDJSON trailer). */
async function exportOnce(origin: string, key: string, path: string, format: ExportRun['format'], acceptEncoding: string, pid: number, idleRssMb: number): Promise<ExportRun> {
  const rss = sampleWhile(RSS_SAMPLE_MS, () => rssMb(pid));
  const health = pollHealth(`${origin}/health`);
  const started = performance.now();
  const { response, body } = await exportBody(origin + path, key, format === 'CSV' ? 'text/csv' : 'application/x-ndjson', acceptEncoding);
  if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  const latencies = await health.stop();
  const peak = Math.max(...(await rss.stop()), rssMb(pid));
  const total = Number(response.headers['x-total-count']);
  const rows = lines - 1;
  if (rows !== total) throw new Error(`${format} export sent ${rows} rows, its X-Total-Count said ${total}`);
  return {
    format,
    seconds,
    rows,
    bytes,
    encoding: response.headers['content-encoding'] ?? 'identity',
    rssOverIdleMb: peak - idleRssMb,
    idleRssMb,
    health: summarizeLatencies(latencies),
  };
}

/** A server started afresh for one measurement (its pid: the process whose RSS is read). */
export interface FreshServer {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

/** The server's RSS once it has answered one small request and rested a second: what it holds idle. */
async function idleRss(server: FreshServer, key: string): Promise<number> {
  await (await fetch(`${server.origin}/v3/payments?per_page=1`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer();
  await sleep(1000);
  return rssMb(server.pid);
}

/**
 * The NDJSON and the CSV export of all payments, gzipped as fetch asks, in zstd, and uncompressed,
 * then the walk of the same list at per_page=5000 (by fetch, so gzipped): each on a server
 * started afresh, whose idle RSS is its baseline. On one server the heap that an earlier export
 * grew (V8 keeps what it committed for a while) counted against every later one.
 */
export async function measureExports(options: { start: () => Promise<FreshServer>; key: string; log: (line: string) => void }): Promise<ExportsResult> {
  const { start, key, log } = options;
  const runs: ExportRun[] = [];
  for (const acceptEncoding of ['gzip, deflate', 'zstd', 'identity']) {
    for (const format of ['NDJSON', 'CSV'] as const) {
      log(`  export all payments as ${format}, Accept-Encoding: ${acceptEncoding}`);
      const server = await start();
      try {
        const idle = await idleRss(server, key);
        runs.push(await exportOnce(server.origin, key, '/v3/payments/export', format, acceptEncoding, server.pid, idle));
      } finally {
        await server.stop();
      }
    }
  }
  log('  walk all payments by links.next, per_page=5000 (against the exports)');
  const server = await start();
  try {
    const idleRssMb = await idleRss(server, key);
    const rss = sampleWhile(RSS_SAMPLE_MS, () => rssMb(server.pid));
    const walked = await walk(server.origin, '/v3/payments?per_page=5000', key);
    const walkPeak = Math.max(...(await rss.stop()));
    return { idleRssMb, runs, walk: walked, walkRssOverIdleMb: walkPeak - idleRssMb };
  } finally {
    await server.stop();
  }
}
