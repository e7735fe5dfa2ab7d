import { describe, expect, it } from 'vitest';
import { durationText } from '../../src/webhooks/durationText.ts';

describe('a duration as a disabled endpoint states it', () => {
  it.each([
    [259_200_000, '3 days'],
    [86_400_000, '1 day'],
    [5_400_000, '1.5 hours'],
    [3_600_000, '1 hour'],
    [600_000, '10 minutes'],
    [59_000, '59 seconds'],
    [1000, '1 second'],
    [400, '400 ms'],
  ])('reads %i ms as %s', (ms, text) => expect(durationText(ms)).toBe(text));
});
