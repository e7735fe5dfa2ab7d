import { describe, expect, it } from 'vitest';
import { TextBoundedMap } from '../../src/db/textBoundedMap.ts';

describe('a text-bounded map', () => {
  it('keeps at most its characters of text: the entry that would pass them starts it afresh', () => {
    const map = new TextBoundedMap<number>(100, 1000);
    map.set('a', 1, 400);
    map.set('b', 2, 400);
    expect([map.get('a'), map.get('b'), map.size, map.chars]).toEqual([1, 2, 2, 800]);
    map.set('c', 3, 300);
    expect([map.get('a'), map.get('b'), map.get('c'), map.size, map.chars]).toEqual([undefined, undefined, 3, 1, 300]);
  });

  it('keeps at most its entries, however short their texts', () => {
    const map = new TextBoundedMap<number>(3, 1_000_000);
    for (let i = 0; i < 3; i++) map.set(`k${i}`, i, 1);
    expect(map.size).toBe(3);
    map.set('k3', 3, 1);
    expect([map.get('k0'), map.get('k3'), map.size]).toEqual([undefined, 3, 1]);
  });

  it('never holds more than its bound over many texts of any size', () => {
    const map = new TextBoundedMap<string>(1000, 50_000);
    let most = 0;
    for (let i = 0; i < 5000; i++) {
      const text = 'x'.repeat(1 + ((i * 7919) % 20_000));
      map.set(`${i}`, text, text.length);
      most = Math.max(most, map.chars);
    }
    expect(most).toBeLessThanOrEqual(50_000);
  });
});
