import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createApiKey, createTenant, findTenantByName } from '../auth/tenantQueries.ts';
import { parseScopes } from '../auth/apiKey.ts';
import { seedTenant } from '../seed/seedTenant.ts';

const USAGE = `Usage: npm run --silent cli -- <command> [flags]

  migrate                                      bring the schema up to date
  tenants create <name>                        create a tenant
  keys create --tenant <name> --scopes read,write
                                               create an API key; prints only the key
  seed --tenant <name> --accounts N --payments M [--seed S] [--until ISO-8601]
                                               add N accounts and M payments (deterministic)
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
      const options = {
        tenant: values.tenant,
        accounts: count(values.accounts, 'accounts'),
        payments: count(values.payments, 'payments'),
        seed: values.seed ?? '1',
        until,
        fingerprintSecret: loadConfig().cardFingerprintSecret,
      };
      const started = performance.now();
      const result = await withDatabase((db) => seedTenant(db.kysely, db.dialect, options));
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.error(`seeded ${result.accounts} accounts and ${result.payments} payments into ${options.tenant} in ${seconds}s`);
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

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});
