import type { PayableAccount } from './accounts.ts';

/**
 * Prefix of the reference of every payment the writer creates and of every Idempotency-Key it
 * sends: how restore.ts finds them again, even those whose response never arrived.
 */
export const WRITER_MARK = 'bench-writer:';

export interface WriterOptions {
  origin: string;
  /** A key with scope write on the bench tenant. */
  key: string;
  accounts: PayableAccount[];
  createsPerSecond?: number;
  capturesPerSecond?: number;
  /** The writer stops by itself this long after it started, if stop() was not called before. */
  maxSeconds: number;
}

export interface WriterStats {
  seconds: number;
  createsPerSecond: number;
  capturesPerSecond: number;
  created: number;
  createFailures: number;
  captured: number;
  /** Captures that took less than authorized. */
  partialCaptures: number;
  captureFailures: number;
  /** Failures by kind, e.g. `create 409` or `capture network`. */
  failures: Record<string, number>;
  /** Writes the schedule asked for that were never sent (in-flight cap reached, or nothing left to capture). */
  behind: { creates: number; captures: number };
  latencyP50: number;
  latencyP99: number;
}

export interface RunningWriter {
  /** Stops sending, waits for the requests in flight, and says what was done. */
  stop(): Promise<WriterStats>;
}

const TICK_MS = 10;
/** Beyond this many requests of one kind in flight the writer falls behind rather than piling up. */
const MAX_IN_FLIGHT = 32;
const CARD = { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 5, cvc: '123' };

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));
const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : NaN);

/**
 * Background writes on the bench tenant, paced by a timer: creates authorized payments
 * (random amounts 100…100000 minor units, on random accounts of `accounts`, in each account's
 * currency) and captures payments it created itself earlier in this run, a third of them for
 * less than authorized. Each write is sent when its slot in the schedule comes, without waiting
 * for earlier ones, up to MAX_IN_FLIGHT of a kind at once.
 */
export function startWriter(options: WriterOptions): RunningWriter {
  const { origin, key, accounts, createsPerSecond = 50, capturesPerSecond = 50, maxSeconds } = options;
  const run = `${WRITER_MARK}${Date.now().toString(36)}:`;
  const stats: WriterStats = {
    seconds: 0, createsPerSecond, capturesPerSecond, created: 0, createFailures: 0, captured: 0, partialCaptures: 0,
    captureFailures: 0, failures: {}, behind: { creates: 0, captures: 0 }, latencyP50: NaN, latencyP99: NaN,
  };
  const latencies: number[] = [];
  const capturable: Array<{ id: string; amount: number }> = [];
  const inFlight = new Set<Promise<void>>();
  let creating = 0;
  let capturing = 0;
  let launchedCreates = 0;
  let launchedCaptures = 0;
  let sequence = 0;
  const started = performance.now();

  const fail = (kind: string) => (stats.failures[kind] = (stats.failures[kind] ?? 0) + 1);

  async function post(path: string, body: unknown): Promise<Response> {
    const sent = performance.now();
    const response = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `${run}${++sequence}` },
      body: JSON.stringify(body),
    });
    latencies.push(performance.now() - sent);
    return response;
  }

  async function create() {
    const account = accounts[randomInt(0, accounts.length - 1)];
    const amount = randomInt(100, 100_000);
    try {
      const response = await post('/v3/payments', {
        account_id: account.id, amount, currency: account.currency, card: CARD, capture: false, reference: run,
      });
      const body = (await response.json()) as { data?: { id: string; status: string } };
      if (response.status === 201 && body.data?.status === 'authorized') {
        stats.created += 1;
        capturable.push({ id: body.data.id, amount });
      } else {
        stats.createFailures += 1;
        fail(`create ${response.status}${body.data ? ` ${body.data.status}` : ''}`);
      }
    } catch {
      stats.createFailures += 1;
      fail('create network');
    }
  }

  async function capture(payment: { id: string; amount: number }) {
    const partial = Math.random() < 1 / 3;
    try {
      const response = await post(`/v3/payments/${payment.id}/capture`, partial ? { amount: randomInt(1, payment.amount - 1) } : {});
      await response.arrayBuffer();
      if (response.status === 200) {
        stats.captured += 1;
        if (partial) stats.partialCaptures += 1;
      } else {
        stats.captureFailures += 1;
        fail(`capture ${response.status}`);
      }
    } catch {
      stats.captureFailures += 1;
      fail('capture network');
    }
  }

  function launch(work: Promise<void>, done: () => void) {
    const tracked = work.finally(() => {
      done();
      inFlight.delete(tracked);
    });
    inFlight.add(tracked);
  }

  function tick() {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed >= maxSeconds) return void finish();
    while (launchedCreates < Math.floor(elapsed * createsPerSecond) && creating < MAX_IN_FLIGHT) {
      launchedCreates += 1;
      creating += 1;
      launch(create(), () => (creating -= 1));
    }
    while (launchedCaptures < Math.floor(elapsed * capturesPerSecond) && capturing < MAX_IN_FLIGHT && capturable.length > 0) {
      launchedCaptures += 1;
      capturing += 1;
      launch(capture(capturable.shift()!), () => (capturing -= 1));
    }
  }

  let stopped: Promise<WriterStats> | undefined;
  function finish(): Promise<WriterStats> {
    stopped ??= (async () => {
      clearInterval(timer);
      stats.seconds = (performance.now() - started) / 1000;
      stats.behind = {
        creates: Math.max(0, Math.floor(stats.seconds * createsPerSecond) - launchedCreates),
        captures: Math.max(0, Math.floor(stats.seconds * capturesPerSecond) - launchedCaptures),
      };
      while (inFlight.size > 0) await Promise.all(inFlight);
      latencies.sort((a, b) => a - b);
      stats.latencyP50 = quantile(latencies, 0.5);
      stats.latencyP99 = quantile(latencies, 0.99);
      return stats;
    })();
    return stopped;
  }

  const timer = setInterval(tick, TICK_MS);
  return { stop: finish };
}
