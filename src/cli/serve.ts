import cluster from 'node:cluster';
import type { Config } from '../config/loadConfig.ts';
import { buildApp } from '../http/buildApp.ts';
import { Redis } from 'ioredis';
import { runPrimary } from './clusterPrimary.ts';
import { openConfiguredDatabase, openConfiguredReplicas, prepareDatabase, printBanner, startupSummary } from './startup.ts';
import { listenFailure } from './listenFailure.ts';
import { stopOnSignals } from './shutdown.ts';

/**
 * Starts the API: migrate, (first embedded run) demo data, listen; drains and closes on
 * SIGTERM/SIGINT within SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS (shutdown.ts). With WORKERS=n the primary prepares the database once and forks n workers
 * that share the port.
 */
export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  const db = openConfiguredDatabase(config);
  const demo = cluster.isWorker ? undefined : await prepareDatabase(db, config);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  redis?.on('error', () => {}); // rate limits pass uncounted while Redis is away
  const reads = await openConfiguredReplicas(db, config);
  const app = await buildApp({ config, db, redis, reads, metrics: config.metricsEnabled, countFold: { intervalMs: config.countFoldMs } });
  // Released only after app.close() has resolved, i.e. after the last in-flight request: an
  // onClose hook added here would run before Fastify's own server close and pull the pool
  // from under requests still running.
  const release = async () => {
    redis?.disconnect();
    await reads.close();
    await db.close();
  };
  stopOnSignals(app, { drainMs: config.shutdownDrainMs, timeoutMs: config.shutdownTimeoutMs, release });
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Nothing may keep the process up (the pool's connections, the webhook sender): it exits with the line.
    await app.close();
    await release();
    throw listenFailure(error, config);
  }
  // Under WORKERS=n the primary prints the banner once, when every worker listens.
  if (!cluster.isWorker) {
    const { msg, ...summary } = startupSummary(config, address, reads.views());
    app.log.info(summary, msg);
    printBanner(config.publicUrl ?? address, demo);
  }
}
