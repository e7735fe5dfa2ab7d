import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config/loadConfig.ts';
import { openDatabase } from '../db/database.ts';
import { sqlitePathOf } from '../config/sqlitePath.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createApiKey, createTenant, findTenantByName, listTenants } from '../auth/tenantQueries.ts';
import { parseScopes, SCOPES } from '../auth/apiKey.ts';
import { findKeysByPrefix, keyState, listKeys, revokeKey, rotateKey } from '../auth/keyLifecycle.ts';
import { explainFailure } from './startupFailure.ts';
import { waitForDatabase } from './waitForDatabase.ts';
import { parseExpiry } from './parseExpiry.ts';
import { printTable } from './printTable.ts';
import type { SeedResult } from '../seed/seedTenant.ts';
import { refreshLoadedTableStatistics } from '../seed/loadedTableStatistics.ts';
import type { SeedWorkerData, SeedWorkerMessage } from './seedWorker.ts';

const USAGE = `Usage: npm run --silent cli -- <command> [flags]

  migrate                                      bring the schema up to date
  tenants create <name>                        create a tenant
  tenants list                                 every tenant, with its number of keys
  keys create --tenant <name> --scopes read,write [--expires 90d|ISO-8601]
                                               create an API key; prints only the key
  keys list --tenant <name>                    prefix, scopes, created, last used, expires, state
  keys revoke <prefix>                         refuse the key from the next request on (401)
  keys rotate <prefix> [--grace 24h]           print a new key with the same tenant and scopes; the
                                               old one works until the grace period ends, then 401
  seed --tenant <name> --accounts N --payments M [--seed S] [--until ISO-8601] [--batch-size B] [--batched]
                                               add N accounts and M payments (deterministic). Into a
                                               payments table holding fewer rows than M: ONE transaction
                                               that locks payments until it commits (for loading a
                                               database, not one a service is using; interrupted, it
                                               leaves nothing). Otherwise, or with --batched, batches
                                               that each commit. The same command again continues an
                                               interrupted run, or adds nothing once it completed
  serve                                        start the HTTP API (PORT, HOST)
  help, --help, --version                      this text; the version

Every command honours DATABASE_URL (postgres://… or sqlite:<path>; default sqlite:./data/payments.sqlite).`;

class UsageError extends Error {}

/** How to run a command, as a hint names it: the way the README and the usage do. */
const CLI = 'npm run --silent cli --';

function count(value: string | undefined, name: string): number {
  const n = Number(value ?? 0);
  if (!/^\s*\d+\s*$/.test(value ?? '0') || !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a whole number, 0 or more: got ${value}`);
  return n;
}

/** Read once, at the edge: a failure is explained with it (which database, which port). */
let config: Config | undefined;

/** The configuration of a command that never listens: a bad PORT or HOST does not stop it. */
const commandConfig = () => (config ??= loadConfig(process.env, { listening: false }));

/** Opens the database (waiting for PostgreSQL to come up), migrates it unless told not to, runs, closes. */
async function withDatabase<T>(run: (db: ReturnType<typeof openDatabase>) => Promise<T>, { migrate = true } = {}): Promise<T> {
  const { databaseUrl, pgPoolMax, pgPooler, pgConnectTimeoutMs, dbConnectRetryMs, embeddedDefault } = commandConfig();
  // A command, not a request: no statement timeout, so no SQLite reader threads either.
  const db = openDatabase(databaseUrl, {
    poolMax: pgPoolMax,
    pooler: pgPooler,
    sqliteReaders: false,
    createFolder: embeddedDefault,
    connectionTimeoutMs: pgConnectTimeoutMs,
  });
  try {
    await waitForDatabase(db, databaseUrl, dbConnectRetryMs, pgConnectTimeoutMs);
    if (migrate) await migrateToLatest(db.kysely, db.dialect);
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
  batched: { type: 'boolean' },
  expires: { type: 'string' },
  grace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/**
 * The arguments, or a UsageError in words of our own: util.parseArgs' messages speak of
 * positionals and ambiguity.
 */
function parseArgsOrUsage(args: string[]) {
  try {
    return parseArgs({ args: negativeValuesJoined(args), allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(argumentProblem(error as Error & { code?: string }));
  }
}

/** `--accounts -5` as `--accounts=-5`: a negative number after an option is its value, for the option's own check to refuse. */
function negativeValuesJoined(args: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (/^--[a-z-]+$/.test(args[i]) && /^-\d/.test(args[i + 1] ?? '')) joined.push(`${args[i]}=${args[++i]}`);
    else joined.push(args[i]);
  }
  return joined;
}

/** What is wrong with the arguments, for a person: the option named, and what would do. */
function argumentProblem(error: Error & { code?: string }): string {
  const option = /'(?:-\w, )?(--?[\w-]+)/.exec(error.message)?.[1] ?? '';
  const name = option.replace(/^-+/, '');
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const known = Object.keys(OPTIONS).map((o) => `--${o}`);
    return `unknown option ${option}; the options are ${known.join(', ')}`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && name in OPTIONS) {
    return OPTIONS[name as keyof typeof OPTIONS].type === 'boolean' ? `--${name} takes no value` : `--${name} needs a value: --${name} <value>`;
  }
  return `${error.message}\n\n${USAGE}`;
}

/** The package's version, for --version. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgsOrUsage(argv);
  const [command, sub, arg] = positionals;
  if (values.version) {
    console.log(version());
    return;
  }
  if (values.help || !command || command === 'help') {
    console.log(USAGE);
    return;
  }
  switch (command) {
    case 'migrate': {
      const applied = await withDatabase((db) => migrateToLatest(db.kysely, db.dialect), { migrate: false });
      console.error(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
      return;
    }
    case 'tenants': {
      if (sub === 'list') {
        const tenants = await withDatabase((db) => listTenants(db.kysely));
        printTable(
          ['name', 'id', 'created', 'keys'],
          tenants.map((t) => [t.name, t.id, t.created_at, String(t.keys)]),
        );
        return;
      }
      if (sub !== 'create' || !arg) throw new UsageError('tenants create <name> | tenants list');
      const tenant = await withDatabase(async (db) => {
        if (await findTenantByName(db.kysely, arg)) throw new UsageError(`tenant ${arg} already exists`);
        return createTenant(db.kysely, arg);
      });
      console.log(tenant.id);
      return;
    }
    case 'keys':
      return keysCommand(sub, arg, values);
    case 'seed': {
      if (!values.tenant) throw new UsageError('seed --tenant <name> --accounts N --payments M');
      const until = values.until ? new Date(values.until) : new Date('2026-11-01T00:00:00Z');
      if (Number.isNaN(until.getTime())) throw new UsageError('--until must be an ISO 8601 time');
      const batchRows = values['batch-size'] === undefined ? undefined : count(values['batch-size'], 'batch-size');
      if (batchRows === 0) throw new UsageError('--batch-size must be at least 1');
      const accounts = count(values.accounts, 'accounts');
      const payments = count(values.payments, 'payments');
      if (accounts === 0 && payments === 0) {
        throw new UsageError('seed adds nothing without counts: pass --accounts N and/or --payments M (payments go to the tenant’s accounts)');
      }
      await seedCommand({
        tenant: values.tenant,
        accounts,
        payments,
        seed: values.seed ?? '1',
        until: until.toISOString(),
        fingerprintSecret: commandConfig().cardFingerprintSecret,
        batchRows,
        mode: values.batched ? 'batched' : 'auto',
        pauseMs: commandConfig().seedPauseMs || undefined,
      });
      return;
    }
    case 'serve': {
      // Loaded only here: the HTTP stack is most of the start-up time of the other commands.
      const { serve } = await import('./serve.ts');
      config = loadConfig();
      await serve(config);
      return;
    }
    default:
      throw new UsageError(`unknown command ${command}\n\n${USAGE}`);
  }
}

/** Which of `--scopes` is not a scope, and which are. */
function scopesProblem(text: string): string {
  const unknown = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && !(SCOPES as readonly string[]).includes(s));
  const valid = SCOPES.join(', ');
  if (unknown.length === 0) return `--scopes is a comma-separated list of ${valid}`;
  return `unknown scope${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} in --scopes ${text}; the scopes are ${valid}`;
}

async function keysCommand(sub: string | undefined, arg: string | undefined, values: ReturnType<typeof parseArgsOrUsage>['values']): Promise<void> {
  const tenantNamed = async (db: ReturnType<typeof openDatabase>, name: string) => {
    const tenant = await findTenantByName(db.kysely, name);
    if (!tenant) throw new UsageError(`no tenant ${name}; create it with: ${CLI} tenants create ${name}`);
    return tenant;
  };
  /** The one key with this prefix that is not revoked yet. */
  const keyPrefixed = async (db: ReturnType<typeof openDatabase>, prefix: string) => {
    const keys = await findKeysByPrefix(db.kysely, prefix);
    if (keys.length === 0) throw new UsageError(`no key starts with ${prefix}; see: ${CLI} keys list --tenant <name>`);
    if (keys.length > 1)
      throw new UsageError(`${keys.length} keys start with ${prefix} (tenants ${keys.map((k) => k.tenant).join(', ')}); revoke them by hand`);
    return keys[0];
  };
  switch (sub) {
    case 'create': {
      const scopes = parseScopes(values.scopes ?? 'read');
      if (!values.tenant) throw new UsageError('keys create --tenant <name> --scopes read,write [--expires 90d]');
      if (!scopes) throw new UsageError(scopesProblem(values.scopes ?? ''));
      const expiresAt = values.expires === undefined ? null : parseExpiry(values.expires, '--expires');
      const tenantName = values.tenant;
      const key = await withDatabase(async (db) => createApiKey(db.kysely, (await tenantNamed(db, tenantName)).id, scopes, expiresAt));
      console.log(key);
      // Only the key goes to stdout (scripts read it); what was assumed goes to stderr.
      if (values.scopes === undefined) console.error('made a read-only key (scopes: read); for one that writes too, add --scopes read,write');
      return;
    }
    case 'list': {
      if (!values.tenant) throw new UsageError('keys list --tenant <name>');
      const tenantName = values.tenant;
      const keys = await withDatabase(async (db) => listKeys(db.kysely, (await tenantNamed(db, tenantName)).id));
      printTable(
        ['prefix', 'scopes', 'created', 'last used', 'expires', 'state'],
        keys.map((k) => [
          k.key_prefix,
          k.scopes,
          k.created_at,
          k.last_used_at ?? '-',
          k.expires_at ?? '-',
          keyState(k) + (k.replaced_by ? ` (rotated to ${k.replaced_by})` : ''),
        ]),
      );
      return;
    }
    case 'revoke': {
      if (!arg) throw new UsageError('keys revoke <prefix>');
      const key = await withDatabase(async (db) => {
        const key = await keyPrefixed(db, arg);
        if (key.revoked_at) throw new UsageError(`${arg} was already revoked at ${key.revoked_at}`);
        await revokeKey(db.kysely, key.id, new Date());
        return key;
      });
      console.error(`revoked ${key.key_prefix} (tenant ${key.tenant}): refused from the next request on`);
      return;
    }
    case 'rotate': {
      if (!arg) throw new UsageError('keys rotate <prefix> [--grace 24h]');
      const graceEndsAt = parseExpiry(values.grace ?? '24h', '--grace', { zeroAllowed: true });
      const { rotation, old } = await withDatabase(async (db) => {
        const old = await keyPrefixed(db, arg);
        if (keyState(old) !== 'active')
          throw new UsageError(`${arg} is ${keyState(old)}: create a new key instead (${CLI} keys create --tenant ${old.tenant})`);
        return { rotation: await rotateKey(db.kysely, old, graceEndsAt), old };
      });
      if (!rotation.rotated) {
        throw new UsageError(
          `${old.key_prefix} is already being rotated: ${rotation.replacedBy}… replaces it, and it works until ${rotation.expiresAt}; ` +
            `to end that now: ${CLI} keys revoke ${old.key_prefix}; to rotate again: ${CLI} keys rotate ${rotation.replacedBy}`,
        );
      }
      console.log(rotation.key);
      console.error(`${old.key_prefix} (tenant ${old.tenant}) keeps working until ${graceEndsAt.toISOString()}; then use ${rotation.prefix}…`);
      return;
    }
    default:
      throw new UsageError('keys create | list | revoke | rotate (see --help)');
  }
}

/**
 * The seed runs in a worker thread whose heap is bounded: on a machine with memory to spare,
 * V8 lets garbage pile up to several times what a seed holds (1M payments on PostgreSQL peaked
 * at 380 MB RSS in the main thread, 235 MB in this worker; 10M at 230 MB). The old generation's
 * limit is SEED_HEAP_MB (1024 by default).
 */
const SEED_YOUNG_GENERATION_MB = 48;

/** The seed's worker ran out of memory: told in one line (seedOutOfMemory), exit code 70 (EX_SOFTWARE). */
class SeedOutOfMemory extends Error {}

/** What the seed was doing when its worker failed, in a sentence's words. */
const SEED_DOING = { rows: 'writing the rows', indexes: "building payments' indexes", counts: 'adding the counts', commit: 'committing' } as const;

/**
 * The one line a seed whose worker ran out of memory ends with: what it was doing, and what of
 * it is left (nothing of a load in one transaction; batches committed before stay).
 */
function seedOutOfMemory(phase: keyof typeof SEED_DOING, heapMb: number): string {
  const left =
    phase === 'rows'
      ? 'a load in one transaction was rolled back (nothing of it committed); batches committed before stay, and the same command continues from them'
      : 'the load in one transaction was rolled back: nothing of it was committed';
  return `the seed ran out of memory (its worker's heap is limited to ${heapMb} MB: SEED_HEAP_MB) while ${SEED_DOING[phase]}: ${left}. Raise SEED_HEAP_MB, or report it if that was the default: a seed of any size is meant to fit it`;
}

/** How long a stop on SQLite waits for the worker to roll back before it ends the process. */
const SQLITE_STOP_WAIT_MS = 1_000;

/** What a load in one transaction says as each phase after its rows begins. */
const SEED_PHASE_LINES = {
  indexes: "seed: rows in; building payments' indexes",
  counts: 'seed: indexes built; adding the counts',
  commit: 'seed: committing',
} as const;

/**
 * Ends the process now, by the signal it was sent (its default action, as if never handled):
 * whatever the seed had not committed is undone by the database (PostgreSQL when the connection
 * drops; SQLite when the file is next opened: the WAL's uncommitted frames are ignored, a
 * rollback journal played back).
 */
function stopAtOnce(signal: NodeJS.Signals): void {
  console.error('stopped at once: what was not committed is undone (SQLite: when the database is next opened)');
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}

/** After a seed that added rows: PostgreSQL's statistics of the loaded tables (loadedTableStatistics.ts), timed. */
async function refreshStatistics(): Promise<void> {
  await withDatabase(
    async (db) => {
      if (db.dialect !== 'postgres') return;
      const started = performance.now();
      await refreshLoadedTableStatistics(db.kysely);
      console.error(`vacuumed and analyzed the loaded tables in ${((performance.now() - started) / 1000).toFixed(1)}s`);
    },
    { migrate: false },
  );
}

/**
 * `seed`, with progress on stderr. Ctrl-C (SIGINT) or SIGTERM stops it once the batches being
 * written commit, or rolls back a load in one transaction (a second Ctrl-C stops at once: those
 * are rolled back); either way the same command continues the run later.
 */
async function seedCommand(options: SeedWorkerData['options']): Promise<void> {
  // Only `seed` needs a worker and a progress bar: other commands do not load them.
  const [{ Worker }, { seedReporter }] = await Promise.all([import('node:worker_threads'), import('./seedProgress.ts')]);
  const config = commandConfig();
  await withDatabase(async () => {}); // waits for the database and migrates, here where a failure is explained
  const started = performance.now();
  const workerData: SeedWorkerData = { databaseUrl: config.databaseUrl, poolMax: config.pgPoolMax, pooler: config.pgPooler, options };
  const worker = new Worker(new URL('./seedWorker.ts', import.meta.url), {
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: SEED_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: config.seedHeapMb },
  });
  const reporter = seedReporter();
  let stopping = false;
  /** A load in one transaction past its rows: one long statement after another (an index build, the counts, the commit). */
  let pastRows = false;
  let phase: keyof typeof SEED_DOING = 'rows';
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return stopAtOnce(signal);
    stopping = true;
    reporter.stop();
    console.error('stopping once the batches being written commit, or rolling back a load in one transaction (Ctrl-C again to stop at once)');
    worker.postMessage('stop');
    // node:sqlite runs a statement synchronously on the worker's thread (a CREATE INDEX over
    // millions of rows for minutes): the worker sees the stop only when it returns, and
    // process.exit waits for it too. So on SQLite, past a load's rows (before, the worker sees
    // the stop after its chunk or batch), a stop not done within a moment ends the process.
    if (sqlitePathOf(config.databaseUrl) && pastRows) setTimeout(() => stopAtOnce(signal), SQLITE_STOP_WAIT_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await new Promise<SeedResult>((resolve, reject) => {
      worker.on('message', (message: SeedWorkerMessage) => {
        if (message.type === 'progress') reporter.progress(message.progress);
        else if (message.type === 'phase') {
          pastRows = true;
          phase = message.phase;
          reporter.stop();
          console.error(SEED_PHASE_LINES[message.phase]);
        } else if (message.type === 'result') resolve(message.result);
        else reject(message.input ? new UsageError(message.message) : Object.assign(new Error(message.message), { stack: message.stack }));
      });
      worker.on('error', (error: Error & { code?: string }) =>
        reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new SeedOutOfMemory(seedOutOfMemory(phase, config.seedHeapMb), { cause: error }) : error),
      );
      worker.on('exit', (code) => reject(new Error(`the seed worker stopped (exit code ${code})`)));
    });
    reporter.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    // A load in one transaction tells where its time went (docs/performance.md, "Seeding").
    const phases = result.phases
      ? ` (${Object.entries(result.phases)
          .map(([phase, t]) => `${phase} ${(t.ms / 1000).toFixed(1)}s, CPU ${(t.cpuMs / 1000).toFixed(1)}s`)
          .join(', ')}${result.journal ? `; SQLite through ${result.journal === 'wal' ? 'the WAL' : 'a rollback journal'}` : ''})`
      : '';
    const added = `${result.accounts} accounts and ${result.payments} payments into ${options.tenant} in ${seconds}s${phases}`;
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
      if (result.outcome === 'completed') await refreshStatistics();
    }
  } finally {
    reporter.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The one edge where failures are told: usage (2), settings and surroundings (one line, sysexits code), bugs (stack, 1). */
main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exitCode = 2;
    return;
  }
  if (error instanceof SeedOutOfMemory) {
    console.error(`error: ${error.message}`);
    process.exitCode = 70;
    return;
  }
  const explained = explainFailure(error, config);
  console.error(explained ? `error: ${explained.line}` : error);
  process.exitCode = explained?.exitCode ?? 1;
  // A WORKERS=n worker: its channel to the primary would keep it alive; the primary reads the code.
  if (cluster.isWorker) process.exit();
});
