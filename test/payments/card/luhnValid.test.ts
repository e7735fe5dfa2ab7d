import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../../src/payments/card/luhnValid.ts';

/** Appends the digit that makes a payload pass Luhn, computed independently of luhnValid. */
function withCheckDigit(payload: string): string {
  for (let d = 0; d <= 9; d++) {
    const digits = payload + d;
    const sum = [...digits].reverse().reduce((acc, ch, i) => {
      const n = Number(ch) * (i % 2 ? 2 : 1);
      return acc + (n > 9 ? n - 9 : n);
    }, 0);
    if (sum % 10 === 0) return digits;
  }
  throw new Error('unreachable');
}

describe('luhnValid', () => {
  it('accepts well-known test numbers', () => {
    for (const n of ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '36227206271667']) expect(luhnValid(n)).toBe(true);
  });

  it('accepts every number completed with its check digit', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{11,18}$/), (payload) => {
        expect(luhnValid(withCheckDigit(payload))).toBe(true);
      }),
    );
  });

  it('rejects any single-digit change of a valid number', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{11,18}$/), fc.nat(), fc.integer({ min: 1, max: 9 }), (payload, at, delta) => {
        const valid = withCheckDigit(payload);
        const i = at % valid.length;
        const changed = valid.slice(0, i) + ((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });

  it('rejects empty and non-digit input', () => {
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4242-4242')).toBe(false);
  });
});
