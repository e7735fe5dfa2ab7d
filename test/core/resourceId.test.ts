import { describe, expect, it } from 'vitest';
import { isIdOf, newId } from '../../src/core/resourceId.ts';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('resource ids', () => {
  it('have their prefix and a ULID, and sort by creation within one millisecond too', () => {
    const ids = Array.from({ length: 1000 }, () => newId('pay', 1_700_000_000_000));
    for (const id of ids) expect(isIdOf('pay', id)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw every random character evenly from the alphabet, at every position, in every millisecond', () => {
    const n = 8000;
    // A new millisecond each time: the random part is drawn afresh, not incremented.
    const randomParts = Array.from({ length: n }, (_, i) => newId('evt', 1_800_000_000_000 + i).slice(-16));
    expect(new Set(randomParts).size).toBe(n);
    for (let position = 0; position < 16; position++) {
      const counts = new Map<string, number>();
      for (const part of randomParts) counts.set(part[position], (counts.get(part[position]) ?? 0) + 1);
      expect([...counts.keys()].every((c) => ALPHABET.includes(c))).toBe(true);
      expect(counts.size).toBe(32);
      // Chi-square over 31 degrees of freedom: 80 is beyond its 99.999th percentile.
      const expected = n / 32;
      const chiSquare = [...counts.values()].reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
      expect(chiSquare).toBeLessThan(80);
    }
  });
});
