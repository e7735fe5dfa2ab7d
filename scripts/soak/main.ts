/**
 * `npm run soak -- --help` prints its flags.
 *
 * Seeds a fresh dataset through the CLI, starts the real server, and drives a fixed mixed load over
 * loopback (lists with random pages/filters/sorts and walks by links.next, single reads, creates
 * with Idempotency-Keys and replays of them, captures, refunds) at bounded concurrency and rate.
 * Prints the error count, p50/p99, and the server's resident memory and heap (read from its own
 * /metrics) after warm-up, once a minute (`--samples` changes how many points), and at the end,
 * with the live heap after a full GC (the lowest the probe read since the previous point). Says
 * whether the live heap levelled off: its trend over the second half of the run after warm-up at
 * most `--level-mb-per-min`. Exits 1 on any error, or when it did not level off.
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSoakServer } from './server.ts';
import { createSoakDataset, type SoakDialect } from './dataset.ts';
import { SoakTraffic, type SoakCall } from './traffic.ts';
import { parseScriptArgs } from '../support/scriptArgs.ts';

const values = parseScriptArgs(
  { command: 'soak', file: 'scripts/soak/main.ts', hints: { db: 'sqlite|postgres' } },
  {
    minutes: { type: 'string', default: '10' },
    db: { type: 'string', default: 'sqlite' },
    concurrency: { type: 'string', default: '8' },
    rate: { type: 'string', default: '150' },
    accounts: { type: 'string', default: '200' },
    payments: { type: 'string', default: '50000' },
    samples: { type: 'string' },
    'level-mb-per-min': { type: 'string', default: '0.05' },
    'warmup-seconds': { type: 'string' },
    keep: { type: 'boolean', default: false },
    'heap-snapshots': { type: 'boolean', default: false },
  },
);
const dialect = values.db as SoakDialect;
if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error('--db is sqlite or postgres');
const durationMs = Number(values.minutes) * 60_000;
const concurrency = Number(values.concurrency);
const rate = Number(values.rate);
const samples = Math.max(2, Math.round(values.samples ? Number(values.samples) : Number(values.minutes)));
const levelMbPerMin = Number(values['level-mb-per-min']);
const warmupMs = values['warmup-seconds'] ? Number(values['warmup-seconds']) * 1000 : Math.min(60_000, Math.max(10_000, durationMs * 0.1));
if (!(durationMs > warmupMs) || !(levelMbPerMin >= 0)) throw new Error('--minutes must be longer than the warm-up, --level-mb-per-min a number ≥ 0');
const log = (line: string) => console.log(`[soak ${dialect}] ${line}`);

/** A tiny deterministic PRNG so two runs send the same mix. */
function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
interface Answer {
  status: number;
  body: string;
}
function call(origin: string, key: string, c: { method: string; path: string; body?: unknown; idempotencyKey?: string }): Promise<Answer> {
  const payload = c.body === undefined ? (c.method === 'POST' ? '{}' : undefined) : JSON.stringify(c.body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(c.path, origin),
      {
        method: c.method,
        agent,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...(c.idempotencyKey ? { 'idempotency-key': c.idempotencyKey } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

class Latencies {
  private values = new Float64Array(1 << 16);
  length = 0;
  add(ms: number) {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = ms;
  }
  summary(from = 0) {
    const part = this.values.slice(from, this.length).sort();
    return { p50: percentile(part, 50), p99: percentile(part, 99), count: part.length };
  }
}

/** RSS and heap in use as the server's /metrics reports them, and the live heap after a full GC (the floor since the previous call). */
async function memoryOf(origin: string, probe: () => { liveHeapMb: number; externalMb: number } | undefined) {
  const text = (await call(origin, '', { method: 'GET', path: '/metrics' })).body;
  const metric = (name: string) => Number(new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024;
  const probed = probe();
  return {
    rssMb: metric('process_resident_memory_bytes'),
    heapMb: metric('nodejs_heap_size_used_bytes'),
    liveMb: probed?.liveHeapMb ?? NaN,
    externalMb: probed?.externalMb ?? NaN,
  };
}

type Point = { minute: number; rssMb: number; liveMb: number };

/** Least-squares slope of `value` over `points`, MB per minute. */
function slopeOf(points: Point[], value: (p: Point) => number): number {
  const mx = points.reduce((a, p) => a + p.minute, 0) / points.length;
  const my = points.reduce((a, p) => a + value(p), 0) / points.length;
  return points.reduce((a, p) => a + (p.minute - mx) * (value(p) - my), 0) / points.reduce((a, p) => a + (p.minute - mx) ** 2, 0);
}

/** The trend over each half of the points (by time), and whether the second half's is within `limit`. */
function levelling(points: Point[], value: (p: Point) => number, limit: number) {
  const middle = (points[0].minute + points[points.length - 1].minute) / 2;
  const first = slopeOf(
    points.filter((p) => p.minute <= middle),
    value,
  );
  const second = slopeOf(
    points.filter((p) => p.minute >= middle),
    value,
  );
  return { first, second, levelled: second <= limit };
}

const fmt = (n: number, d = 1) => n.toFixed(d);

log(`seeding ${values.payments} payments over ${values.accounts} accounts through the CLI…`);
const dataset = await createSoakDataset(dialect, Number(values.accounts), Number(values.payments));
const server = await startSoakServer(dataset.url, values['heap-snapshots']);
log(`server ${server.origin}; ${values.minutes} min, concurrency ${concurrency}, ${rate > 0 ? `${rate} req/s` : 'unthrottled'}, warm-up ${warmupMs / 1000} s`);
try {
  const accounts = JSON.parse(
    (await call(server.origin, dataset.key, { method: 'GET', path: '/v3/accounts?per_page=200&filter[status]=active' })).body,
  ).data.map((a: { id: string }) => a.id);
  const payments = JSON.parse((await call(server.origin, dataset.key, { method: 'GET', path: '/v3/payments?per_page=500&sort=-amount' })).body).data.map(
    (p: { id: string }) => p.id,
  );
  const traffic = new SoakTraffic(accounts, payments, mulberry32(7));
  const latencies = new Latencies();
  const errors: string[] = [];
  let errorCount = 0;
  // Each of the first 20 is also logged when it happens: an hour-long run should not hide one till the end.
  const noteError = (line: string) => {
    errorCount++;
    if (errors.length >= 20) return;
    errors.push(line);
    log(`error: ${line}`);
  };
  const byKind = new Map<string, number>();
  const started = performance.now();
  const deadline = started + durationMs;
  let issued = 0;

  const worker = async () => {
    while (performance.now() < deadline) {
      if (rate > 0) {
        // Fixed rate: call number k is due at k / rate seconds.
        const due = started + (issued / rate) * 1000;
        issued++;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        if (performance.now() >= deadline) return;
      }
      const c: SoakCall = traffic.next();
      const t0 = performance.now();
      try {
        const answer = await call(server.origin, dataset.key, c);
        latencies.add(performance.now() - t0);
        byKind.set(c.kind, (byKind.get(c.kind) ?? 0) + 1);
        if (answer.status !== c.expect) {
          noteError(`${c.kind} ${c.method} ${c.path} → ${answer.status} ${answer.body.slice(0, 300)}`);
        } else {
          c.after?.(JSON.parse(answer.body));
        }
      } catch (error) {
        latencies.add(performance.now() - t0);
        noteError(`${c.kind} ${c.method} ${c.path} → ${(error as Error).message}`);
      }
    }
  };
  const workers = Array.from({ length: concurrency }, worker);

  await sleep(warmupMs);
  const atStart = await memoryOf(server.origin, server.takeFloor);
  if (values['heap-snapshots']) server.snapshot();
  const warmIndex = latencies.length;
  log(
    `after warm-up (${fmt(warmupMs / 1000, 0)} s): requests ${latencies.length}, errors ${errorCount}, RSS ${fmt(atStart.rssMb)} MB, heap used ${fmt(atStart.heapMb)} MB, live heap after GC ${fmt(atStart.liveMb)} MB`,
  );
  const points: Point[] = [{ minute: warmupMs / 60_000, rssMb: atStart.rssMb, liveMb: atStart.liveMb }];
  const interval = (durationMs - warmupMs) / samples;
  let windowStart = latencies.length;
  for (let s = 1; s < samples; s++) {
    await sleep(Math.max(0, started + warmupMs + s * interval - performance.now()));
    const memory = await memoryOf(server.origin, server.takeFloor);
    const window = latencies.summary(windowStart);
    windowStart = latencies.length;
    const minute = (performance.now() - started) / 60_000;
    points.push({ minute, rssMb: memory.rssMb, liveMb: memory.liveMb });
    log(
      `t=${fmt(minute)} min: requests ${latencies.length}, errors ${errorCount}, last window p50 ${fmt(window.p50)} ms p99 ${fmt(window.p99)} ms, RSS ${fmt(memory.rssMb)} MB, heap used ${fmt(memory.heapMb)} MB, live heap after GC ${fmt(memory.liveMb)} MB, external ${fmt(memory.externalMb)} MB`,
    );
  }
  await Promise.all(workers);
  if (values['heap-snapshots']) {
    server.snapshot();
    await sleep(15_000); // writing a snapshot takes a while; the server must still be up
    log('heap snapshots (after warm-up, at end) are in data/soak/*.heapsnapshot: compare them in Chrome DevTools → Memory');
  }
  const atEnd = await memoryOf(server.origin, server.takeFloor);
  points.push({ minute: (performance.now() - started) / 60_000, rssMb: atEnd.rssMb, liveMb: atEnd.liveMb });
  const all = latencies.summary();
  const steady = latencies.summary(warmIndex);
  const seconds = (performance.now() - started) / 1000;
  const live = levelling(points, (p) => p.liveMb, levelMbPerMin);
  const rss = levelling(points, (p) => p.rssMb, Number.POSITIVE_INFINITY);
  const middle = points.reduce((a, p) => (Math.abs(p.minute - seconds / 120) < Math.abs(a.minute - seconds / 120) ? p : a));
  log('');
  log(`RESULT ${dialect}: ${fmt(seconds / 60)} min, ${all.count} requests (${fmt(all.count / seconds, 0)} req/s), errors ${errorCount}`);
  log(`  latency all: p50 ${fmt(all.p50)} ms, p99 ${fmt(all.p99)} ms; after warm-up: p50 ${fmt(steady.p50)} ms, p99 ${fmt(steady.p99)} ms`);
  log(`  memory after warm-up: RSS ${fmt(atStart.rssMb)} MB, heap used ${fmt(atStart.heapMb)} MB, live heap after GC ${fmt(atStart.liveMb)} MB`);
  log(
    `  memory at end:        RSS ${fmt(atEnd.rssMb)} MB, heap used ${fmt(atEnd.heapMb)} MB, live heap after GC ${fmt(atEnd.liveMb)} MB, external ${fmt(atEnd.externalMb)} MB (after warm-up ${fmt(atStart.externalMb)} MB)`,
  );
  log(
    `  RSS change ${fmt(atEnd.rssMb - atStart.rssMb)} MB (${fmt(((atEnd.rssMb - atStart.rssMb) / atStart.rssMb) * 100)} %), trend ${fmt(
      slopeOf(points, (p) => p.rssMb),
      2,
    )} MB/min (first half ${fmt(rss.first, 2)}, second half ${fmt(rss.second, 2)}); live heap change ${fmt(atEnd.liveMb - atStart.liveMb)} MB, trend ${fmt(
      slopeOf(points, (p) => p.liveMb),
      2,
    )} MB/min (${points.length} samples)`,
  );
  log(
    `  live heap after GC: ${fmt(atStart.liveMb)} MB after warm-up, ${fmt(middle.liveMb)} MB at ${fmt(middle.minute)} min, ${fmt(atEnd.liveMb)} MB at end; trend ${fmt(live.first, 3)} MB/min over the first half, ${fmt(live.second, 3)} MB/min over the second`,
  );
  log(
    `  VERDICT: live heap ${Number.isNaN(live.second) ? 'not judged (too few points: run longer)' : live.levelled ? 'levelled off' : 'still growing'} (second-half trend ${fmt(live.second, 3)} MB/min, limit ${levelMbPerMin} MB/min)`,
  );
  log(`  mix: ${[...byKind].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  for (const e of errors) log(`  error: ${e}`);
  process.exitCode = errorCount > 0 || (!live.levelled && !Number.isNaN(live.second)) ? 1 : 0;
} finally {
  agent.destroy();
  await server.stop();
  if (!values.keep) await dataset.drop();
}
