import cluster from 'node:cluster';
import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { buildApp } from '../http/buildApp.ts';
import { createDemoTenantIfEmpty } from '../seed/demoTenant.ts';
import { Redis } from 'ioredis';
import { runPrimary } from './clusterPrimary.ts';
import { shutDownGracefully } from './shutdown.ts';

export function openConfiguredDatabase(config: Config): Db {
  return openDatabase(config.databaseUrl, {
    poolMax: config.pgPoolMax,
    connectionTimeoutMs: config.pgConnectTimeoutMs,
    pingTimeoutMs: config.readyTimeoutMs,
    statementTimeoutMs: config.limits.statementTimeoutMs,
  });
}

/** Migrates and, on the first embedded run, creates demo data: once, before anything listens. */
export async function prepareDatabase(db: Db, config: Config) {
  await migrateToLatest(db.kysely, db.dialect);
  return config.embeddedDefault ? createDemoTenantIfEmpty(db, config) : undefined;
}

export function printBanner(origin: string, demo: Awaited<ReturnType<typeof prepareDatabase>>, suffix = ''): void {
  if (demo) {
    console.log(`
Demo tenant "demo" created with ${demo.accounts} accounts and ${demo.payments} card payments.
Demo API key (shown once; keys are stored hashed):

  ${demo.key}

Try it:

  curl -sg -H 'Authorization: Bearer ${demo.key}' '${origin}/v3/payments?per_page=2&filter[status]=succeeded&sort=-amount'
`);
  } else {
    console.log(`Listening on ${origin}${suffix}. Create an API key with: npm run --silent cli -- keys create --tenant <name> --scopes read,write`);
  }
}

/**
 * Starts the API: migrate, (first embedded run) demo data, listen; drains and closes cleanly on
 * SIGTERM/SIGINT. With WORKERS=n the primary prepares the database once and forks n workers
 * that share the port.
 */
export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  const db = openConfiguredDatabase(config);
  const demo = cluster.isWorker ? undefined : await prepareDatabase(db, config);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  redis?.on('error', () => {}); // rate limits pass uncounted while Redis is away
  const app = await buildApp({ config, db, redis, metrics: config.metricsEnabled });
  // Released only after app.close() has resolved, i.e. after the last in-flight request: an
  // onClose hook added here would run before Fastify's own server close and pull the pool
  // from under requests still running.
  const release = async () => {
    redis?.disconnect();
    await db.close();
  };
  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    stopping ??= shutDownGracefully(app, { signal, drainMs: config.shutdownDrainMs, release }).then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const address = await app.listen({ port: config.port, host: config.host });
  // Under WORKERS=n the primary prints the banner once, when every worker listens.
  if (!cluster.isWorker) printBanner(config.publicUrl ?? address, demo);
}
