import { describe, expect, it } from 'vitest';
import { skipFromNearerEnd } from '../../../src/lists/plan/skipFromNearerEnd.ts';

describe('skipFromNearerEnd', () => {
  it('skips the offset while the start is nearer', () => {
    expect(skipFromNearerEnd(1000, 30, 10)).toBe(30);
  });

  it('skips the rows after the page once the end is nearer', () => {
    expect(skipFromNearerEnd(1000, 900, 10)).toBe(90);
    expect(skipFromNearerEnd(1000, 990, 10)).toBe(0);
  });

  it('skips nothing for a page past the end', () => {
    expect(skipFromNearerEnd(100, 200, 10)).toBe(0);
  });
});
