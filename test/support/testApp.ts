import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import type { ResourceLimits, WebhookSettings } from '../../src/config/loadConfig.ts';
import { buildApp } from '../../src/http/buildApp.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import type { Scope } from '../../src/auth/apiKey.ts';
import type { ListTuning } from '../../src/lists/plan/listTuning.ts';
import { createTestDatabase, type TestDatabase } from './testDatabase.ts';
import { resolveTestHost } from './testHosts.ts';
import type { ResolveHost } from '../../src/webhooks/targetSafety.ts';
import type { FoldSettings } from '../../src/lists/counters/countFolder.ts';

export interface TestContext {
  app: FastifyInstance;
  database: TestDatabase;
  /** A tenant with a key of the given scopes. */
  tenant(name: string, scopes?: Scope[]): Promise<{ id: string; key: string }>;
  /** GET through HTTP (app.inject) with a key. */
  get(url: string, key: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** Any method through HTTP (app.inject) with a key and optional JSON body and headers. */
  send(
    method: 'POST' | 'PATCH' | 'DELETE' | 'GET',
    url: string,
    key: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

type TestAppConfig = {
  publicUrl?: string;
  trustProxy?: boolean;
  corsOrigins?: string[];
  /** Rate limits are off in tests (the suite sends thousands of requests from 127.0.0.1) unless set here. */
  limits?: Partial<ResourceLimits>;
  /** How deep pages are found (tests force the deep ways on small lists). */
  listTuning?: ListTuning;
  redis?: Redis;
  rateLimitPrefix?: string;
  logger?: FastifyServerOptions['logger'];
  /** The webhook sender is off in tests unless asked for here (tests that deliver set `sender: true`). */
  webhooks?: Partial<WebhookSettings>;
  /** Webhook host names are resolved from a fixed table (testHosts.ts), never by DNS. */
  resolveHost?: ResolveHost;
  /** The fold of list changes (countFolder.ts): soon after each write by default, so reads meet folded and unfolded changes alike; false: none. */
  countFold?: Partial<FoldSettings> | false;
};

/** An app on a given database. */
export function appOn(database: TestDatabase, config: TestAppConfig = {}) {
  return buildApp({
    config: {
      publicUrl: config.publicUrl,
      trustProxy: config.trustProxy ?? false,
      logLevel: 'silent',
      cardFingerprintSecret: 'test-secret',
      corsOrigins: config.corsOrigins,
      limits: { rateLimitPerKey: 0, rateLimitPerIp: 0, ...config.limits },
      webhooks: { sender: false, ...config.webhooks },
    },
    db: database.db,
    logger: config.logger ?? false,
    redis: config.redis,
    listTuning: config.listTuning,
    rateLimitPrefix: config.rateLimitPrefix,
    resolveHost: config.resolveHost ?? resolveTestHost,
    countFold: config.countFold ?? { intervalMs: 20 },
  });
}

export async function createTestApp(config: TestAppConfig = {}): Promise<TestContext> {
  const database = await createTestDatabase();
  const app = await appOn(database, config);
  return {
    app,
    database,
    async tenant(name, scopes = ['read', 'write']) {
      const tenant = await findOrCreateTenant(database.db.kysely, name);
      return { id: tenant.id, key: await createApiKey(database.db.kysely, tenant.id, scopes) };
    },
    async get(url, key) {
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      return { status: response.statusCode, body: response.json(), headers: response.headers };
    },
    async send(method, url, key, payload, headers = {}) {
      const response = await app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}`, ...headers },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.body ? response.json() : undefined, headers: response.headers };
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
