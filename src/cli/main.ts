import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createApiKey, createTenant, findTenantByName } from '../auth/tenantQueries.ts';
import { parseScopes } from '../auth/apiKey.ts';
import { Worker } from 'node:worker_threads';
import type { SeedResult } from '../seed/seedTenant.ts';
import { seedReporter } from './seedProgress.ts';
import type { SeedWorkerData, SeedWorkerMessage } from './seedWorker.ts';

const USAGE = `Usage: npm run --silent cli -- <command> [flags]

  migrate                                      bring the schema up to date
  tenants create <name>                        create a tenant
  keys create --tenant <name> --scopes read,write
                                               create an API key; prints only the key
  seed --tenant <name> --accounts N --payments M [--seed S] [--until ISO-8601] [--batch-size B]
                                               add N accounts and M payments (deterministic), committed
                                               in batches; the same command again continues an
                                               interrupted run, or adds nothing once it completed
  serve                                        start the HTTP API (PORT, HOST)

Every command honours DATABASE_URL (postgres://… or sqlite:<path>; default sqlite:./data/payments.sqlite).`;

class UsageError extends Error {}

function count(value: string | undefined, name: string): number {
  const n = Number(value ?? 0);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number`);
  return n;
}

async function withDatabase<T>(run: (db: ReturnType<typeof openDatabase>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = openDatabase(config.databaseUrl, { poolMax: config.pgPoolMax });
  try {
    await migrateToLatest(db.kysely, db.dialect);
    return await run(db);
  } finally {
    await db.close();
  }
}

const OPTIONS = {
  tenant: { type: 'string' },
  scopes: { type: 'string' },
  accounts: { type: 'string' },
  payments: { type: 'string' },
  seed: { type: 'string' },
  until: { type: 'string' },
  'batch-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parseArgsOrUsage(args: string[]) {
  try {
    return parseArgs({ args, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${USAGE}`);
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgsOrUsage(argv);
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  switch (command) {
    case 'migrate': {
      const applied = await withDatabase((db) => migrateToLatest(db.kysely, db.dialect));
      console.error(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
      return;
    }
    case 'tenants': {
      if (sub !== 'create' || !arg) throw new UsageError('tenants create <name>');
      const tenant = await withDatabase(async (db) => {
        if (await findTenantByName(db.kysely, arg)) throw new UsageError(`tenant ${arg} already exists`);
        return createTenant(db.kysely, arg);
      });
      console.log(tenant.id);
      return;
    }
    case 'keys': {
      const scopes = parseScopes(values.scopes ?? 'read');
      if (sub !== 'create' || !values.tenant) throw new UsageError('keys create --tenant <name> --scopes read,write');
      if (!scopes) throw new UsageError('--scopes is a comma-separated list of read, write');
      const tenantName = values.tenant;
      const key = await withDatabase(async (db) => {
        const tenant = await findTenantByName(db.kysely, tenantName);
        if (!tenant) throw new UsageError(`no tenant ${tenantName}; create it with: tenants create ${tenantName}`);
        return createApiKey(db.kysely, tenant.id, scopes);
      });
      console.log(key);
      return;
    }
    case 'seed': {
      if (!values.tenant) throw new UsageError('seed --tenant <name> --accounts N --payments M');
      const until = values.until ? new Date(values.until) : new Date('2026-11-01T00:00:00Z');
      if (Number.isNaN(until.getTime())) throw new UsageError('--until must be an ISO 8601 time');
      const batchRows = values['batch-size'] === undefined ? undefined : count(values['batch-size'], 'batch-size');
      if (batchRows === 0) throw new UsageError('--batch-size must be at least 1');
      await seedCommand({
        tenant: values.tenant,
        accounts: count(values.accounts, 'accounts'),
        payments: count(values.payments, 'payments'),
        seed: values.seed ?? '1',
        until: until.toISOString(),
        fingerprintSecret: loadConfig().cardFingerprintSecret,
        batchRows,
        pauseMs: Number(process.env.SEED_PAUSE_MS ?? 0) || undefined,
      });
      return;
    }
    case 'serve': {
      // Loaded only here: the HTTP stack is most of the start-up time of the other commands.
      const { serve } = await import('./serve.ts');
      await serve(loadConfig());
      return;
    }
    default:
      throw new UsageError(`unknown command ${command}\n\n${USAGE}`);
  }
}

/**
 * The seed runs in a worker thread whose heap is bounded: on a machine with memory to spare,
 * V8 lets garbage pile up to several times what a seed holds (1M payments on PostgreSQL peaked
 * at 380 MB RSS in the main thread, 235 MB in this worker; 10M at 230 MB).
 */
const SEED_HEAP = { maxYoungGenerationSizeMb: 48, maxOldGenerationSizeMb: 1024 };

/**
 * `seed`, with progress on stderr. Ctrl-C (SIGINT) or SIGTERM stops it once the batches being
 * written commit (a second Ctrl-C stops at once: those are rolled back); either way the same
 * command continues the run later.
 */
async function seedCommand(options: SeedWorkerData['options']): Promise<void> {
  const config = loadConfig();
  const started = performance.now();
  const workerData: SeedWorkerData = { databaseUrl: config.databaseUrl, poolMax: config.pgPoolMax, options };
  const worker = new Worker(new URL('./seedWorker.ts', import.meta.url), { workerData, resourceLimits: SEED_HEAP });
  const reporter = seedReporter();
  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(130);
    stopping = true;
    reporter.stop();
    console.error('stopping once the batches being written commit (Ctrl-C again to stop at once)');
    worker.postMessage('stop');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await new Promise<SeedResult>((resolve, reject) => {
      worker.on('message', (message: SeedWorkerMessage) => {
        if (message.type === 'progress') reporter.progress(message.progress);
        else if (message.type === 'result') resolve(message.result);
        else reject(message.input ? new UsageError(message.message) : Object.assign(new Error(message.message), { stack: message.stack }));
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`the seed worker stopped (exit code ${code})`)));
    });
    reporter.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const added = `${result.accounts} accounts and ${result.payments} payments into ${options.tenant} in ${seconds}s`;
    const earlier =
      result.before.accounts || result.before.payments
        ? ` (continuing an interrupted run that had added ${result.before.accounts} accounts and ${result.before.payments} payments)`
        : '';
    if (result.outcome === 'already-completed') {
      console.error(
        `nothing to seed: this run (tenant ${options.tenant}, seed ${options.seed}, ${options.accounts} accounts, ${options.payments} payments, until ${options.until}) completed at ${result.finishedAt}; a different --seed adds new rows`,
      );
    } else if (result.outcome === 'interrupted') {
      console.error(`interrupted: seeded ${added}${earlier}; run the same command again to continue`);
      process.exitCode = 130;
    } else {
      console.error(`seeded ${added}${earlier}`);
    }
  } finally {
    reporter.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});
