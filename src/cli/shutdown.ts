import type { FastifyInstance } from 'fastify';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InFlightRequest } from '../http/lifecycle.ts';

/**
 * A signal repeated within this long is the same stop delivered twice, not a second one: npm
 * passes on to its child the SIGINT a terminal sends the whole process group, and a service
 * manager (systemd's control group) signals npm and the server alike.
 */
export const REPEATED_SIGNAL_MS = 1_000;

/** After the cut, how long closing hooks and the database pool get before the process exits without them. */
const CLOSE_AFTER_CUT_MS = 5_000;

interface ShutdownOptions {
  signal: string;
  drainMs: number;
  timeoutMs: number;
  release: () => Promise<void>;
}

/** `GET /v3/payments/export (req 9f…, 12.3 s)`, and so on, for a log line. */
export function describeRequests(requests: InFlightRequest[]): string {
  return requests.map((r) => `${r.method} ${r.url} (req ${r.id}, ${(r.runningMs / 1000).toFixed(1)} s)`).join(', ');
}

/**
 * SIGTERM: readiness turns 503 at once; for `drainMs` the instance keeps serving (a load
 * balancer needs a health-check interval or two to notice) with `Connection: close` on every
 * response; then the listener closes, in-flight requests get `timeoutMs` to finish (late arrivals
 * on open connections get a 503 problem), what is left is cut, and only then the database pool
 * closes (`release`). Resolves with how many requests were cut (or -1: closing never finished).
 */
export async function shutDownGracefully(app: FastifyInstance, { signal, drainMs, timeoutMs, release }: ShutdownOptions): Promise<number> {
  app.lifecycle.startDraining();
  app.log.info({ signal, drainMs, timeoutMs }, 'draining: readiness is off');
  if (drainMs > 0) await sleep(drainMs);
  app.log.info({ timeoutMs }, 'closing: no new connections; finishing in-flight requests');
  const closed = app.close();
  if ((await settledWithin(closed, timeoutMs)) === 'settled') {
    await closed;
    await release();
    app.log.info('closed');
    return 0;
  }
  const cut = app.lifecycle.inFlight();
  app.log.error(
    { cut },
    `shutdown timeout: SHUTDOWN_TIMEOUT_MS (${timeoutMs} ms) passed; cut ${cut.length === 0 ? 'nothing (no request was in flight: closing hooks held it)' : `${cut.length} request${cut.length === 1 ? '' : 's'} in flight: ${describeRequests(cut)}`}`,
  );
  app.lifecycle.cutInFlight();
  const finished = closed.then(release);
  if ((await settledWithin(finished, CLOSE_AFTER_CUT_MS)) === 'settled') {
    await finished;
    app.log.info('closed');
    return cut.length;
  }
  app.log.error(`closing did not finish ${CLOSE_AFTER_CUT_MS} ms after the cut; exiting without it`);
  return -1;
}

/** Whether `work` settled within `ms`; never throws (the caller awaits it again to see a failure). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<'settled' | 'timed-out'> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      work.then(
        () => 'settled' as const,
        () => 'settled' as const,
      ),
      sleep(ms, 'timed-out' as const, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}

/**
 * SIGTERM and SIGINT stop the server gracefully (exit 0; 1 when the timeout cut requests or
 * closing failed); a second signal exits at once (128 + its number), naming what it cut.
 */
export function stopOnSignals(app: FastifyInstance, options: Omit<ShutdownOptions, 'signal'>): void {
  let firstAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstAt === undefined) {
      firstAt = performance.now();
      shutDownGracefully(app, { ...options, signal }).then(
        (cut) => process.exit(cut === 0 ? 0 : 1),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
      return;
    }
    if (performance.now() - firstAt < REPEATED_SIGNAL_MS) return;
    const left = app.lifecycle.inFlight();
    app.log.warn({ signal, cut: left }, `second ${signal}: exiting at once${left.length ? `; cut ${describeRequests(left)}` : ''}`);
    process.exit(128 + constants.signals[signal]);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
