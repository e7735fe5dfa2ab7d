import { LRUCache } from 'lru-cache';
import type { Redis } from 'ioredis';

/** The last row of a served page: its sort-key values, then its id. */
export type Boundary = Array<string | number>;

/** Where page boundaries are remembered between a walker's requests. */
export interface BoundaryCache {
  get(key: string): Promise<Boundary | undefined>;
  set(key: string, boundary: Boundary): Promise<void>;
}

export const BOUNDARY_TTL_MS = 10 * 60 * 1000;

/** Bounded, in-process (the default): one instance's walkers. */
export function memoryBoundaryCache(max = 20_000): BoundaryCache {
  const lru = new LRUCache<string, Boundary>({ max, ttl: BOUNDARY_TTL_MS });
  return {
    async get(key) {
      return lru.get(key);
    },
    async set(key, boundary) {
      lru.set(key, boundary);
    },
  };
}

/** Shared through Redis (REDIS_URL), so a walker may hit any instance. Redis trouble only costs speed. */
export function redisBoundaryCache(redis: Redis, prefix = 'pgb:'): BoundaryCache {
  return {
    async get(key) {
      try {
        const text = await redis.get(prefix + key);
        return text ? (JSON.parse(text) as Boundary) : undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, boundary) {
      try {
        await redis.set(prefix + key, JSON.stringify(boundary), 'PX', BOUNDARY_TTL_MS);
      } catch {
        // A lost boundary means the next page is found by OFFSET instead: slower, still exact.
      }
    },
  };
}
