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
  /** Shared state for several instances (page boundaries); in-process when unset. */
  redisUrl: string | undefined;
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
  };
}

export function sqlitePathOf(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const path = databaseUrl.slice('sqlite:'.length);
  return path === ':memory:' ? path : resolve(path);
}
