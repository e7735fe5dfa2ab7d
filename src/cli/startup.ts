import type { Config } from '../config/loadConfig.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createDemoTenantIfEmpty } from '../seed/demoTenant.ts';
import { describeDatabase } from '../db/describeDatabase.ts';
import { waitForDatabase } from './waitForDatabase.ts';

/** What a single server and the WORKERS=n primary both do before anything listens. */

export function openConfiguredDatabase(config: Config): Db {
  return openDatabase(config.databaseUrl, {
    poolMax: config.pgPoolMax,
    pooler: config.pgPooler,
    connectionTimeoutMs: config.pgConnectTimeoutMs,
    pingTimeoutMs: config.readyTimeoutMs,
    statementTimeoutMs: config.limits.statementTimeoutMs,
  });
}

/** Migrates and, on the first embedded run, creates demo data: once, before anything listens. */
export async function prepareDatabase(db: Db, config: Config) {
  await waitForDatabase(db, config.databaseUrl, config.dbConnectRetryMs);
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

/** What the start-up log line says: where the data is (never credentials), and what is switched on. */
export function startupSummary(config: Config, address: string) {
  const features = [
    config.metricsEnabled && 'metrics',
    config.redisUrl && 'shared rate limits (Redis)',
    (config.limits.rateLimitPerKey || config.limits.rateLimitPerIp) && 'rate limits',
    config.corsOrigins.length > 0 && 'CORS',
    config.trustProxy !== false && 'trust proxy',
    config.publicUrl && `public URL ${config.publicUrl}`,
    config.shutdownDrainMs > 0 && `drain ${config.shutdownDrainMs}ms`,
  ].filter((f): f is string => typeof f === 'string');
  return {
    msg: `listening on ${address}: ${describeDatabase(config.databaseUrl)}, port ${config.port}, ${config.workers} worker${config.workers === 1 ? '' : 's'}, features: ${features.join(', ') || 'none'}`,
    database: describeDatabase(config.databaseUrl),
    port: config.port,
    workers: config.workers,
    features,
  };
}
