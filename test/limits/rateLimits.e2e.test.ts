import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { appOn, createTestApp, type TestContext } from '../support/testApp.ts';
import { DEFAULT_LIMITS } from '../../src/config/loadConfig.ts';
import { hashApiKey } from '../../src/auth/apiKey.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function call(app: FastifyInstance, key: string | undefined, url = '/v3/accounts', remoteAddress = '127.0.0.1') {
  return app.inject({ url, remoteAddress, headers: key ? { authorization: `Bearer ${key}` } : {} });
}

describe('rate limits: per API key and per client address', () => {
  let t: TestContext;
  let busy: string;
  let quiet: string;
  beforeAll(async () => {
    t = await createTestApp();
    busy = (await t.tenant('busy')).key;
    quiet = (await t.tenant('quiet')).key;
  });
  afterAll(() => t.close());

  it('a flood from one key gets 429 problems with Retry-After while another key keeps being served', async () => {
    const app = await appOn(t.database, { limits: { rateLimitPerKey: 5, rateLimitPerIp: 0, rateLimitWindowMs: 60_000 } });
    try {
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await call(app, busy);
        expect(response.statusCode).toBe(200);
        remaining.push(String(response.headers['ratelimit-remaining']));
        expect(response.headers['ratelimit-limit']).toBe('5');
      }
      expect(remaining).toEqual(['4', '3', '2', '1', '0']);
      for (let i = 0; i < 20; i++) {
        const limited = await call(app, busy, i % 2 ? '/v3/payments' : '/v3/accounts');
        expect(limited.statusCode).toBe(429);
        expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
        expect(limited.headers['ratelimit-remaining']).toBe('0');
        expect(limited.json()).toMatchObject({ status: 429, title: 'Too many requests' });
        expect(limited.json().detail).toMatch(/API key made more than 5 requests/);
      }
      for (let i = 0; i < 5; i++) expect((await call(app, quiet)).statusCode).toBe(200);
      // Writes are refused before they run: nothing is created past the budget.
      const write = await app.inject({
        method: 'POST',
        url: '/v3/accounts',
        headers: { authorization: `Bearer ${busy}` },
        payload: { name: 'n', email: 'n@example.com', currency: 'USD' },
      });
      expect(write.statusCode).toBe(429);
      expect(await t.database.db.kysely.selectFrom('accounts').select('id').execute()).toEqual([]);
      expect((await call(app, undefined, '/health')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('floods from one address are throttled before authentication, bad keys included; other addresses go on', async () => {
    const app = await appOn(t.database, { limits: { rateLimitPerKey: 0, rateLimitPerIp: 10, rateLimitWindowMs: 60_000 } });
    try {
      const statuses = [];
      for (let i = 0; i < 15; i++) statuses.push((await call(app, `apk_guess${i}`, '/v3/payments', '203.0.113.7')).statusCode);
      expect(statuses).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
      const limited = await call(app, busy, '/v3/payments', '203.0.113.7');
      expect(limited.statusCode).toBe(429);
      expect(limited.json().detail).toMatch(/client address/);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await call(app, busy, '/v3/payments', '198.51.100.2')).statusCode).toBe(200);
      expect((await call(app, undefined, '/health', '203.0.113.7')).statusCode).toBe(200);
      expect((await call(app, undefined, '/ready', '203.0.113.7')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('the defaults leave normal use alone: a key walking 200 pages in a row is never limited', async () => {
    const app = await appOn(t.database, { limits: { rateLimitPerKey: DEFAULT_LIMITS.rateLimitPerKey, rateLimitPerIp: DEFAULT_LIMITS.rateLimitPerIp } });
    try {
      for (let i = 0; i < 200; i++) expect((await call(app, busy, `/v3/payments?page=${i + 1}`)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('rate limits shared through Redis: two instances, one budget', () => {
  let t: TestContext;
  let redis: Redis;
  let prefix: string;
  beforeAll(async () => {
    t = await createTestApp();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    prefix = `test-rl:${randomBytes(6).toString('hex')}:`;
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await t.close();
  });

  it('requests to either instance count against the same per-key budget, keyed by the key’s hash', async () => {
    const { key } = await t.tenant('shared');
    const other = await t.tenant('other');
    const limits = { rateLimitPerKey: 6, rateLimitPerIp: 0, rateLimitWindowMs: 60_000 };
    const one = await appOn(t.database, { limits, redis, rateLimitPrefix: prefix });
    const two = await appOn(t.database, { limits, redis, rateLimitPrefix: prefix });
    try {
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await call(i % 2 ? two : one, key)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
      expect((await call(two, other.key)).statusCode).toBe(200);
      expect((await call(one, other.key)).statusCode).toBe(200);
      const stored = await redis.keys(`${prefix}*`);
      expect(stored.some((k) => k.includes(hashApiKey(key)))).toBe(true);
      expect(stored.join('\n')).not.toContain(key);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('keeps serving, uncounted, when Redis is unreachable', async () => {
    const { key } = await t.tenant('offline');
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => {});
    const app = await appOn(t.database, { limits: { rateLimitPerKey: 2, rateLimitPerIp: 2 }, redis: down, rateLimitPrefix: prefix });
    try {
      for (let i = 0; i < 5; i++) expect((await call(app, key)).statusCode).toBe(200);
    } finally {
      await app.close();
      down.disconnect();
    }
  });
});
