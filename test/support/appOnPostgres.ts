import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { WebhookSettings } from '../../src/config/loadConfig.ts';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/buildApp.ts';

export interface AppOnPostgres {
  app: FastifyInstance;
  db: Db;
  /** An HTTP exchange through app.inject, with a key if given. */
  send(method: 'GET' | 'POST' | 'PATCH', url: string, key?: string, payload?: object): Promise<{ status: number; body: any; retryAfter: unknown }>;
  close(): Promise<void>;
}

/** An app on a PostgreSQL URL of the test's own (its own database or role), with a small pool of its own. */
export async function appOnPostgres(
  url: string,
  options: { logger?: FastifyServerOptions['logger']; webhooks?: Partial<WebhookSettings> } = {},
): Promise<AppOnPostgres> {
  const db = openDatabase(url, { poolMax: 2, connectionTimeoutMs: 2_000 });
  const app = await buildApp({
    config: {
      publicUrl: undefined,
      trustProxy: false,
      logLevel: 'silent',
      cardFingerprintSecret: 'test-secret',
      limits: { rateLimitPerKey: 0, rateLimitPerIp: 0 },
      webhooks: { sender: false, ...options.webhooks },
    },
    db,
    logger: options.logger ?? false,
  });
  return {
    app,
    db,
    async send(method, path, key, payload) {
      const response = await app.inject({ method, url: path, headers: key ? { authorization: `Bearer ${key}` } : {}, ...(payload ? { payload } : {}) });
      return { status: response.statusCode, body: response.json(), retryAfter: response.headers['retry-after'] };
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}
