import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/loadConfig.ts';
import { serveClusterMetrics } from '../metrics/clusterMetrics.ts';
import { REPEATED_SIGNAL_MS } from './shutdown.ts';
import { openConfiguredDatabase, prepareDatabase, printBanner, startupSummary } from './startup.ts';

/** A worker dying this soon after its start, this many times in a row, means something is broken: give up. */
const CRASH_WINDOW_MS = 10_000;
const MAX_QUICK_CRASHES = 5;
/**
 * Exit codes a worker's start-up failure ends with, its one line already printed (listenFailure.ts,
 * startupFailure.ts): cannot listen (69), not allowed to (77), bad configuration (78). Another
 * worker would fail the same way: the primary stops them all and exits with the same code.
 */
const STARTUP_FAILURE_CODES = new Set([69, 77, 78]);

/**
 * WORKERS=n: prepare the database once, fork n workers sharing the port (node:cluster), replace a
 * worker that dies, and on SIGTERM/SIGINT pass the signal on and exit when every worker has
 * drained and exited (0 if they all exited cleanly).
 */
export async function runPrimary(config: Config): Promise<void> {
  const db = openConfiguredDatabase(config);
  let demo: Awaited<ReturnType<typeof prepareDatabase>>;
  try {
    demo = await prepareDatabase(db, config);
  } finally {
    await db.close();
  }
  serveClusterMetrics();

  let stopping = false;
  let failed = false;
  let stopSignal: NodeJS.Signals | undefined;
  let quickCrashes = 0;
  let bannerShown = false;
  const listening = new Set<number>();
  const startedAt = new Map<number, number>();

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
  };
  cluster.on('listening', (worker: Worker, address) => {
    listening.add(worker.id);
    if (!bannerShown && listening.size === config.workers) {
      bannerShown = true;
      const host = address.address && address.address !== '::' ? address.address : config.host;
      const origin = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      // The primary has no logger of its own: its one start-up line goes to stderr, as text.
      if (config.logLevel !== 'silent') console.error(startupSummary(config, origin).msg);
      printBanner(config.publicUrl ?? origin, demo, ` (${config.workers} workers)`);
    }
  });
  cluster.on('exit', (worker: Worker, code, signal) => {
    const wasListening = listening.delete(worker.id);
    if (!stopping && !wasListening && STARTUP_FAILURE_CODES.has(code)) {
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exit(code);
    }
    if (stopping) {
      // Killed by our own signal before it could install its handler = still starting, nothing in flight.
      if (code !== 0 && signal !== stopSignal) failed = true;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
      return;
    }
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    const quick = Date.now() - (startedAt.get(worker.id) ?? 0) < CRASH_WINDOW_MS;
    quickCrashes = quick ? quickCrashes + 1 : 0;
    if (quickCrashes >= MAX_QUICK_CRASHES) {
      console.error(`workers keep dying at start; giving up`);
      process.exit(1);
    }
    fork();
  });
  let firstSignalAt = 0;
  const stop = (signal: NodeJS.Signals) => {
    // A second signal is passed on too: each worker then exits at once (shutdown.ts).
    if (stopping && performance.now() - firstSignalAt < REPEATED_SIGNAL_MS) return;
    firstSignalAt = stopping ? firstSignalAt : performance.now();
    stopping = true;
    stopSignal = signal;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Workers accept from the shared listening socket themselves. Under round-robin the primary
  // accepts and hands each connection over; one handed to a worker that dies that moment stays
  // open in the primary, unanswered, forever. Now a connection not yet accepted waits in the
  // socket's queue for the other worker, and one the dead worker had accepted is reset by the OS.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  for (let i = 0; i < config.workers; i++) fork();
}
