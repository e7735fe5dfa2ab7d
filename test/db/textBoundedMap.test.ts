import { describe, expect, it } from 'vitest';
import { TextBoundedMap } from '../../src/db/textBoundedMap.ts';

describe('a text-bounded map', () => {
  it('keeps at most its characters of text: the oldest entries go to make room', () => {
    const map = new TextBoundedMap<number>(100, 1000);
    map.set('a', 1, 400);
    map.set('b', 2, 400);
    expect([map.get('a'), map.get('b'), map.size, map.chars]).toEqual([1, 2, 2, 800]);
    map.set('c', 3, 300);
    expect([map.get('a'), map.get('b'), map.get('c'), map.size, map.chars]).toEqual([undefined, 2, 3, 2, 700]);
    map.set('d', 4, 1000);
    expect([map.get('b'), map.get('c'), map.get('d'), map.size, map.chars]).toEqual([undefined, undefined, 4, 1, 1000]);
  });

  it('keeps at most its entries, however short their texts', () => {
    const map = new TextBoundedMap<number>(3, 1_000_000);
    for (let i = 0; i < 4; i++) map.set(`k${i}`, i, 1);
    expect([map.get('k0'), map.get('k1'), map.get('k3'), map.size]).toEqual([undefined, 1, 3, 3]);
  });

  it('counts a key set again once', () => {
    const map = new TextBoundedMap<number>(10, 1000);
    map.set('a', 1, 400);
    map.set('a', 2, 500);
    expect([map.get('a'), map.size, map.chars]).toEqual([2, 1, 500]);
  });

  it('never holds more than its bound over many texts of any size', () => {
    const map = new TextBoundedMap<string>(1000, 50_000);
    let most = 0;
    for (let i = 0; i < 5000; i++) {
      const text = 'x'.repeat(1 + ((i * 7919) % 20_000));
      map.set(`${i}`, text, text.length);
      most = Math.max(most, map.chars);
      expect(map.get(`${i}`)).toBe(text);
    }
    expect(most).toBeLessThanOrEqual(50_000);
  });
});
