import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryBoundaryCache, redisBoundaryCache } from '../../src/pagination/boundaryCache.ts';

describe('boundary caches', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  afterAll(() => redis.quit());

  it('in memory: remembers and evicts beyond its bound', async () => {
    const cache = memoryBoundaryCache(2);
    await cache.set('a', ['2026-01-01T00:00:00.000Z', 'pay_1']);
    await cache.set('b', [5, 'pay_2']);
    await cache.set('c', [6, 'pay_3']);
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('c')).toEqual([6, 'pay_3']);
  });

  it('in Redis: one instance’s boundary is seen by another, with a TTL', async () => {
    const prefix = `test:${randomBytes(4).toString('hex')}:`;
    const other = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      await redisBoundaryCache(redis, prefix).set('k', [1500, 'pay_9']);
      expect(await redisBoundaryCache(other, prefix).get('k')).toEqual([1500, 'pay_9']);
      expect(await redis.pttl(`${prefix}k`)).toBeGreaterThan(0);
      await redis.del(`${prefix}k`);
    } finally {
      await other.quit();
    }
  });

  it('in Redis: a dead Redis costs speed, not errors', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    dead.on('error', () => {});
    const cache = redisBoundaryCache(dead);
    await expect(cache.set('k', [1, 'x'])).resolves.toBeUndefined();
    await expect(cache.get('k')).resolves.toBeUndefined();
    dead.disconnect();
  });
});
