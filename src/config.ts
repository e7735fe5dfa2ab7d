import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** `postgres://…`, `sqlite:<path>`, or the embedded default file. */
  databaseUrl: string;
  /** True when no DATABASE_URL was given: the zero-setup embedded database. */
  embeddedDefault: boolean;
  /** Origin used for absolute links; when unset, the request's own origin. */
  publicUrl: string | undefined;
  logLevel: string;
  /** Fastify `trustProxy`: honour X-Forwarded-* only when this is set. */
  trustProxy: boolean | string | number;
  pgPoolMax: number;
  /** Key for card fingerprints (HMAC); a deployment must set its own. */
  cardFingerprintSecret: string;
  /** Shared state for several instances (rate-limit counters); in-process when unset. */
  redisUrl: string | undefined;
  /** Origins allowed by CORS (`*` for any); empty: CORS off. */
  corsOrigins: string[];
  /** What one request and one caller may consume (README → Limits and rate limiting). */
  limits: ResourceLimits;
  /** Operations (issue 6): see README "Operations". PostgreSQL: give up opening a connection, or waiting for a free pooled one, after this long (503). */
  pgConnectTimeoutMs: number;
  readyTimeoutMs: number;
  shutdownDrainMs: number;
  workers: number;
  metricsEnabled: boolean;
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

export const DEFAULT_LIMITS: ResourceLimits = {
  rateLimitPerKey: 3000,
  rateLimitPerIp: 6000,
  rateLimitWindowMs: 60_000,
  bodyLimit: 256 * 1024,
  requestTimeoutMs: 30_000,
  connectionTimeoutMs: 120_000,
  statementTimeoutMs: 10_000,
  exportsPerKey: 2,
  exportStatementTimeoutMs: 600_000,
};

/** A whole number from the environment, or the default; anything else stops the start. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, got ${value}`);
  return n;
}

function parseLimits(env: NodeJS.ProcessEnv): ResourceLimits {
  const d = DEFAULT_LIMITS;
  return {
    rateLimitPerKey: wholeNumber(env, 'RATE_LIMIT_PER_KEY', d.rateLimitPerKey),
    rateLimitPerIp: wholeNumber(env, 'RATE_LIMIT_PER_IP', d.rateLimitPerIp),
    rateLimitWindowMs: wholeNumber(env, 'RATE_LIMIT_WINDOW_MS', d.rateLimitWindowMs) || d.rateLimitWindowMs,
    bodyLimit: wholeNumber(env, 'BODY_LIMIT', d.bodyLimit) || d.bodyLimit,
    requestTimeoutMs: wholeNumber(env, 'REQUEST_TIMEOUT_MS', d.requestTimeoutMs),
    connectionTimeoutMs: wholeNumber(env, 'CONNECTION_TIMEOUT_MS', d.connectionTimeoutMs),
    statementTimeoutMs: wholeNumber(env, 'PG_STATEMENT_TIMEOUT_MS', d.statementTimeoutMs),
    exportsPerKey: wholeNumber(env, 'EXPORTS_PER_KEY', d.exportsPerKey),
    exportStatementTimeoutMs: wholeNumber(env, 'EXPORT_STATEMENT_TIMEOUT_MS', d.exportStatementTimeoutMs),
  };
}

export const DEFAULT_SQLITE_FILE = './data/payments.sqlite';

function parseTrustProxy(value: string | undefined): boolean | string | number {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value; // comma-separated addresses / CIDRs, as Fastify accepts them
}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0..65535, got ${value}`);
  return port;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const publicUrl = env.PUBLIC_URL ? new URL(env.PUBLIC_URL).origin : undefined;
  return {
    port: parsePort(env.PORT, 3000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || `sqlite:${DEFAULT_SQLITE_FILE}`,
    embeddedDefault: !env.DATABASE_URL,
    publicUrl,
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    pgPoolMax: Number(env.PG_POOL_MAX || 10),
    cardFingerprintSecret: env.CARD_FINGERPRINT_SECRET || 'dev-only-fingerprint-secret-change-me',
    redisUrl: env.REDIS_URL || undefined,
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    limits: parseLimits(env),
    pgConnectTimeoutMs: wholeNumber(env, 'PG_CONNECT_TIMEOUT_MS', 5_000, 1),
    readyTimeoutMs: wholeNumber(env, 'READY_TIMEOUT_MS', 2_000, 1),
    shutdownDrainMs: wholeNumber(env, 'SHUTDOWN_DRAIN_MS', 0),
    workers: wholeNumber(env, 'WORKERS', 1, 1),
    metricsEnabled: env.METRICS !== 'off',
  };
}

export function sqlitePathOf(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const path = databaseUrl.slice('sqlite:'.length);
  return path === ':memory:' ? path : resolve(path);
}
