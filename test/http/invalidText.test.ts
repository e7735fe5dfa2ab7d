import { describe, expect, it } from 'vitest';
import { invalidTextIn, NOT_UNICODE_MESSAGE, NUL_MESSAGE } from '../../src/http/invalidText.ts';

describe('invalid text in a parsed value', () => {
  it('finds nothing in ordinary text, numbers and nulls', () => {
    expect(invalidTextIn({ a: 'ok', b: [1, null, 'ß'], c: { d: true } })).toBeUndefined();
  });

  it('names the path to a NUL character, in values and in keys', () => {
    expect(invalidTextIn({ a: { b: ['x', 'y\u0000'] } })).toEqual({ path: ['a', 'b', '1'], message: NUL_MESSAGE });
    expect(invalidTextIn({ metadata: { 'k\u0000': 'v' } })).toEqual({ path: ['metadata', 'k\u0000'], message: NUL_MESSAGE });
  });

  it('names a lone surrogate, showing an unprintable key with U+FFFD', () => {
    expect(invalidTextIn({ name: 'a\ud800' })).toEqual({ path: ['name'], message: NOT_UNICODE_MESSAGE });
    expect(invalidTextIn({ '\udc00': 'v' })).toEqual({ path: ['\ufffd'], message: NOT_UNICODE_MESSAGE });
  });

  it('walks very deep values without running out of stack', () => {
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 100_000; i++) deep = { n: deep };
    expect(invalidTextIn(deep)?.path).toHaveLength(100_000);
  });
});
