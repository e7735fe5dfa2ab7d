import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { buildApp } from '../http/buildApp.ts';
import { createDemoTenantIfEmpty } from '../seed/demoTenant.ts';
import { Redis } from 'ioredis';
import { memoryBoundaryCache, redisBoundaryCache } from '../pagination/boundaryCache.ts';

/** Starts the API: migrate, (first embedded run) demo data, listen; closes cleanly on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const db = openDatabase(config.databaseUrl, { poolMax: config.pgPoolMax });
  await migrateToLatest(db.kysely, db.dialect);
  const demo = config.embeddedDefault ? await createDemoTenantIfEmpty(db, config) : undefined;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  redis?.on('error', () => {}); // boundaries fall back to OFFSET while Redis is away
  const boundaries = redis ? redisBoundaryCache(redis) : memoryBoundaryCache();
  const app = await buildApp({ config, db, boundaries });
  app.addHook('onClose', async () => {
    redis?.disconnect();
    await db.close();
  });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  const address = await app.listen({ port: config.port, host: config.host });
  const origin = config.publicUrl ?? address;
  if (demo) {
    console.log(`
Demo tenant "demo" created with ${demo.accounts} accounts and ${demo.payments} card payments.
Demo API key (shown once; keys are stored hashed):

  ${demo.key}

Try it:

  curl -sg -H 'Authorization: Bearer ${demo.key}' '${origin}/v3/payments?per_page=2&filter[status]=succeeded&sort=-amount'
`);
  } else {
    console.log(`Listening on ${origin}. Create an API key with: npm run --silent cli -- keys create --tenant <name> --scopes read,write`);
  }
}
