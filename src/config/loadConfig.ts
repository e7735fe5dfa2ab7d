import { ConfigError } from './configError.ts';
import { CONFIG_VARIABLES, LISTENER_VARIABLES, type PG_POOLERS } from './configVariables.ts';

export type PgPooler = (typeof PG_POOLERS)[number];
import { readVariable } from './readVariable.ts';

export interface Config {
  port: number;
  host: string;
  /** `postgres://…`, `sqlite:<path>`, or the embedded default file. */
  databaseUrl: string;
  /** True when no DATABASE_URL was given: the zero-setup embedded database. */
  embeddedDefault: boolean;
  /** PostgreSQL: how long to retry a first connection that fails because the server is not reachable (yet). */
  dbConnectRetryMs: number;
  /** Origin used for absolute links; when unset, the request's own origin. */
  publicUrl: string | undefined;
  logLevel: string;
  /** `pretty`: coloured lines; `json`: JSON lines; `auto`: pretty when stdout is a terminal. */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Fastify `trustProxy`: honour X-Forwarded-* only when this is set. */
  trustProxy: boolean | number | string[];
  pgPoolMax: number;
  /** What stands between us and PostgreSQL (PG_POOLER): how settings and prepared statements travel. */
  pgPooler: PgPooler;
  /** Key for card fingerprints (HMAC); a deployment must set its own. */
  cardFingerprintSecret: string;
  /** PostgreSQL read replicas (DATABASE_REPLICA_URLS); empty: none. */
  replicaUrls: string[];
  /** A replica whose data may be older than this is not read from (REPLICA_MAX_LAG_MS). */
  replicaMaxLagMs: number;
  /** How soon after a write its list changes are folded into the counts (COUNT_FOLD_MS). */
  countFoldMs: number;
  /** Shared state for several instances (rate-limit counters); in-process when unset. */
  redisUrl: string | undefined;
  /** Origins allowed by CORS (`*` for any); empty: CORS off. */
  corsOrigins: string[];
  /** What one request and one caller may consume (docs/errors.md → Limits and rate limiting). */
  limits: ResourceLimits;
  /** Operations (issue 6): see docs/operations.md "Operations". PostgreSQL: give up opening a connection, or waiting for a free pooled one, after this long (503). */
  pgConnectTimeoutMs: number;
  readyTimeoutMs: number;
  shutdownDrainMs: number;
  /** After the listener closes, what is still in flight is cut after this long (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  workers: number;
  metricsEnabled: boolean;
  /** Tests only: a pause after each seed batch. */
  seedPauseMs: number;
  /** `seed`'s worker heap (old generation), MB. */
  seedHeapMb: number;
  /** Events and webhooks: docs/webhooks.md. */
  webhooks: WebhookSettings;
}

export interface WebhookSettings {
  /** Events older than this many days are purged (EVENT_RETENTION_DAYS). */
  eventRetentionDays: number;
  /** Allow http and loopback/private/link-local targets (WEBHOOK_ALLOW_PRIVATE_TARGETS): for local receivers and tests only. */
  allowPrivateTargets: boolean;
  /** One delivery attempt gives up after this long (WEBHOOK_TIMEOUT_MS). */
  attemptTimeoutMs: number;
  /** First retry after about this long, doubling (with jitter) up to 12 h per wait (WEBHOOK_RETRY_BASE_MS). */
  retryBaseMs: number;
  /** A delivery failing this long is given up, and its endpoint disabled (WEBHOOK_GIVE_UP_AFTER_MS). */
  giveUpAfterMs: number;
  /** How often the sender looks for due deliveries (WEBHOOK_POLL_MS). */
  pollMs: number;
  /** Run the sender in this process (WEBHOOK_SENDER=off turns it off). */
  sender: boolean;
}

export interface ResourceLimits {
  /** Requests per window per API key (bucket keyed by the key's hash); 0 turns it off. */
  rateLimitPerKey: number;
  /** Requests per window per client address, counted before authentication; 0 turns it off. */
  rateLimitPerIp: number;
  /** The rate-limit window in milliseconds. */
  rateLimitWindowMs: number;
  /** Largest request body in bytes (413 beyond). */
  bodyLimit: number;
  /** Time to receive a whole request, in ms (408 beyond); Node's `requestTimeout`. */
  requestTimeoutMs: number;
  /** An idle socket is closed after this many ms; Node's `server.setTimeout`. */
  connectionTimeoutMs: number;
  /** PostgreSQL `statement_timeout` in ms for every pooled connection (503 beyond); 0 turns it off. */
  statementTimeoutMs: number;
  /** Exports (`…/export`) one API key may run at once (429 beyond); 0 turns exports off for everyone. */
  exportsPerKey: number;
  /** PostgreSQL `statement_timeout` in ms for an export's own statements (its count and each FETCH); 0: none. */
  exportStatementTimeoutMs: number;
}

export const DEFAULT_SQLITE_FILE = './data/payments.sqlite';

/**
 * Every variable, typed; a ConfigError naming each bad one (all of them, not just the first).
 * Not `listening`: a bad variable only a server reads takes its default instead.
 */
function readAll(env: NodeJS.ProcessEnv, listening: boolean): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const bad: string[] = [];
  for (const variable of CONFIG_VARIABLES) {
    const reading = readVariable(variable, env);
    if (reading.ok) values.set(variable.name, reading.value);
    else if (!listening && LISTENER_VARIABLES.has(variable.name)) values.set(variable.name, variable.fallback);
    else bad.push(reading.line);
  }
  if (bad.length) throw new ConfigError(bad);
  return values;
}

/** `listening: false` for a command that never listens (every one but `serve`). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, { listening = true } = {}): Config {
  const values = readAll(env, listening);
  const int = (name: string) => values.get(name) as number;
  const str = (name: string) => values.get(name) as string | undefined;
  const databaseUrl = str('DATABASE_URL');
  const publicUrl = str('PUBLIC_URL');
  return {
    port: int('PORT'),
    host: str('HOST') as string,
    databaseUrl: databaseUrl ?? `sqlite:${DEFAULT_SQLITE_FILE}`,
    embeddedDefault: databaseUrl === undefined,
    dbConnectRetryMs: int('DB_CONNECT_RETRY_S') * 1000,
    publicUrl: publicUrl === undefined ? undefined : new URL(publicUrl).origin,
    logLevel: str('LOG_LEVEL') as string,
    logFormat: str('LOG_FORMAT') as Config['logFormat'],
    trustProxy: values.get('TRUST_PROXY') as Config['trustProxy'],
    pgPoolMax: int('PG_POOL_MAX'),
    pgPooler: str('PG_POOLER') as PgPooler,
    cardFingerprintSecret: str('CARD_FINGERPRINT_SECRET') as string,
    replicaUrls: (str('DATABASE_REPLICA_URLS') ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean),
    replicaMaxLagMs: int('REPLICA_MAX_LAG_MS'),
    countFoldMs: int('COUNT_FOLD_MS'),
    redisUrl: str('REDIS_URL'),
    corsOrigins: (str('CORS_ORIGINS') ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    limits: {
      rateLimitPerKey: int('RATE_LIMIT_PER_KEY'),
      rateLimitPerIp: int('RATE_LIMIT_PER_IP'),
      rateLimitWindowMs: int('RATE_LIMIT_WINDOW_MS'),
      bodyLimit: int('BODY_LIMIT'),
      requestTimeoutMs: int('REQUEST_TIMEOUT_MS'),
      connectionTimeoutMs: int('CONNECTION_TIMEOUT_MS'),
      statementTimeoutMs: int('PG_STATEMENT_TIMEOUT_MS'),
      exportsPerKey: int('EXPORTS_PER_KEY'),
      exportStatementTimeoutMs: int('EXPORT_STATEMENT_TIMEOUT_MS'),
    },
    pgConnectTimeoutMs: int('PG_CONNECT_TIMEOUT_MS'),
    readyTimeoutMs: int('READY_TIMEOUT_MS'),
    shutdownDrainMs: int('SHUTDOWN_DRAIN_MS'),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS'),
    workers: int('WORKERS'),
    metricsEnabled: values.get('METRICS') as boolean,
    seedPauseMs: int('SEED_PAUSE_MS'),
    seedHeapMb: int('SEED_HEAP_MB'),
    webhooks: {
      eventRetentionDays: int('EVENT_RETENTION_DAYS'),
      allowPrivateTargets: values.get('WEBHOOK_ALLOW_PRIVATE_TARGETS') as boolean,
      attemptTimeoutMs: int('WEBHOOK_TIMEOUT_MS'),
      retryBaseMs: int('WEBHOOK_RETRY_BASE_MS'),
      giveUpAfterMs: int('WEBHOOK_GIVE_UP_AFTER_MS'),
      pollMs: int('WEBHOOK_POLL_MS'),
      sender: values.get('WEBHOOK_SENDER') as boolean,
    },
  };
}

/** The defaults of every limit: what tests and the bench start from. */
export const DEFAULT_LIMITS: ResourceLimits = loadConfig({}).limits;

/** The defaults of the webhook settings. */
export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = loadConfig({}).webhooks;
