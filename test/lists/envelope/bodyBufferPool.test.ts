import { describe, expect, it } from 'vitest';
import { BodyBufferPool } from '../../../src/lists/envelope/bodyBufferPool.ts';

const MB = 1024 * 1024;

describe('BodyBufferPool', () => {
  it('hands a buffer given back to the next taker it is big enough for', () => {
    const pool = new BodyBufferPool();
    const first = pool.take(3 * MB);
    pool.give(first);
    expect(pool.take(2 * MB) === first).toBe(true);
    expect(pool.size).toBe(0);
  });

  it('never hands one buffer to two takers, and keeps a buffer given back twice only once', () => {
    const pool = new BodyBufferPool();
    const buffer = pool.take(MB);
    pool.give(buffer);
    pool.give(buffer);
    expect(pool.size).toBe(1);
    const a = pool.take(MB);
    const b = pool.take(MB);
    // Compared as identities: a matcher would print megabytes.
    expect(a === buffer).toBe(true);
    expect(b === buffer).toBe(false);
  });

  it('makes a new buffer when none given back is big enough', () => {
    const pool = new BodyBufferPool();
    pool.give(Buffer.allocUnsafe(MB));
    const bigger = pool.take(2 * MB);
    expect(bigger.length).toBeGreaterThanOrEqual(2 * MB);
    expect(pool.size).toBe(1);
  });

  it('keeps neither small buffers (allocated as usual) nor huge ones', () => {
    const pool = new BodyBufferPool();
    pool.give(Buffer.allocUnsafe(1024));
    pool.give(Buffer.allocUnsafe(64 * MB));
    expect(pool.size).toBe(0);
  });

  it('holds at most as many as it was told, keeping the biggest', () => {
    const pool = new BodyBufferPool(2);
    const sizes = [1, 3, 2, 4].map((n) => n * MB);
    for (const size of sizes) pool.give(Buffer.allocUnsafe(size));
    expect(pool.size).toBe(2);
    expect(pool.take(3 * MB).length).toBeGreaterThanOrEqual(3 * MB);
    expect(pool.take(3 * MB).length).toBeGreaterThanOrEqual(3 * MB);
    expect(pool.size).toBe(0);
  });
});
