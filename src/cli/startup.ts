import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createDemoTenantIfEmpty } from '../seed/demoTenant.ts';

/** What a single server and the WORKERS=n primary both do before anything listens. */

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
