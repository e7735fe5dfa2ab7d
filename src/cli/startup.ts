import type { Config } from '../config/loadConfig.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createDemoTenantIfEmpty, DEMO } from '../seed/demoTenant.ts';
import { someTenantName } from '../auth/tenantQueries.ts';
import { describeDatabase } from '../db/describeDatabase.ts';
import { openReadRouting, replicaName } from '../db/openReadRouting.ts';
import type { ReadRouting, ReplicaView } from '../db/readReplicas.ts';
import { sqlitePathOf } from '../config/sqlitePath.ts';
import { waitForDatabase } from './waitForDatabase.ts';

/** What a single server and the WORKERS=n primary both do before anything listens. */

export function openConfiguredDatabase(config: Config): Db {
  return openDatabase(config.databaseUrl, databaseOptions(config));
}

function databaseOptions(config: Config) {
  return {
    poolMax: config.pgPoolMax,
    pooler: config.pgPooler,
    connectionTimeoutMs: config.pgConnectTimeoutMs,
    statementTimeoutMs: config.limits.statementTimeoutMs,
    createFolder: config.embeddedDefault,
  };
}

/** DATABASE_REPLICA_URLS' replicas, opened like the primary and asked once how far they are (none on SQLite). */
export async function openConfiguredReplicas(db: Db, config: Config): Promise<ReadRouting> {
  const reads = openReadRouting(db, { primary: config.databaseUrl, replicas: config.replicaUrls }, databaseOptions(config), config.replicaMaxLagMs);
  await reads.start();
  return reads;
}

/**
 * What the start-up line says of read replicas: each by host and port with what it answered
 * (when asked), that SQLite ignores them, or nothing when none is configured.
 */
export function describeReplicas(config: Config, views?: ReplicaView[]): string | undefined {
  if (config.replicaUrls.length === 0) return undefined;
  if (sqlitePathOf(config.databaseUrl)) return `read replicas ignored: DATABASE_REPLICA_URLS is for PostgreSQL, the database is SQLite`;
  const names = views
    ? views.map((v) => `${v.name} (${v.status === 'up' ? `replaying, lag ${Math.round(v.lagMs)} ms` : v.status})`)
    : config.replicaUrls.map(replicaName);
  return `read replicas ${names.join(' and ')}, reads after each tenant's last write, else the primary; lag bound ${config.replicaMaxLagMs} ms`;
}

/**
 * Migrates and, on the first embedded run, creates demo data: once, before anything listens.
 * Otherwise it names a tenant that exists (the demo one when there), for the banner's hint.
 */
export async function prepareDatabase(db: Db, config: Config): Promise<DemoData | { tenant: string | undefined }> {
  await waitForDatabase(db, config.databaseUrl, config.dbConnectRetryMs, config.pgConnectTimeoutMs);
  await migrateToLatest(db.kysely, db.dialect);
  const created = config.embeddedDefault ? await createDemoTenantIfEmpty(db, config) : undefined;
  return created ?? { tenant: await someTenantName(db.kysely, DEMO.tenant) };
}

type DemoData = NonNullable<Awaited<ReturnType<typeof createDemoTenantIfEmpty>>>;

/** How to run a command, as the README and the usage do. */
const CLI = 'npm run --silent cli --';

export function printBanner(origin: string, demo: Awaited<ReturnType<typeof prepareDatabase>> | undefined, suffix = ''): void {
  if (demo && 'key' in demo) {
    console.log(`
Demo tenant "demo" created with ${demo.accounts} accounts and ${demo.payments} card payments.
Demo API key (shown once; keys are stored hashed):

  ${demo.key}

Try it:

  curl -sg -H 'Authorization: Bearer ${demo.key}' '${origin}/v3/payments?per_page=2&filter[status]=succeeded&sort=-amount'

The reference, to try every endpoint in a browser ("Authorize" with the key): ${origin}/docs
`);
  } else {
    // A tenant that exists is named, not a placeholder; with none yet, the hint starts by making one.
    const next = demo?.tenant
      ? `Create an API key with: ${CLI} keys create --tenant ${demo.tenant} --scopes read,write`
      : `Create a tenant, then an API key: ${CLI} tenants create <name>; ${CLI} keys create --tenant <name> --scopes read,write`;
    console.log(`Listening on ${origin}${suffix}. Reference: ${origin}/docs. ${next}`);
  }
}

/** What the start-up log line says: where the data is (never credentials), and what is switched on. */
export function startupSummary(config: Config, address: string, replicas?: ReplicaView[]) {
  const features = [
    config.metricsEnabled && 'metrics',
    config.redisUrl && 'shared rate limits (Redis)',
    (config.limits.rateLimitPerKey || config.limits.rateLimitPerIp) && 'rate limits',
    config.corsOrigins.length > 0 && 'CORS',
    config.trustProxy !== false && 'trust proxy',
    config.publicUrl && `public URL ${config.publicUrl}`,
    describeReplicas(config, replicas),
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
