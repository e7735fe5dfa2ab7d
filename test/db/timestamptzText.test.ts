import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestamptzToIso } from '../../src/db/timestamptzText.ts';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** What PostgreSQL (DateStyle ISO) prints for the instant `ms` in a zone `offsetSeconds` east of UTC, with `digits` of fraction. */
function postgresText(ms: number, offsetSeconds: number, digits: number): string {
  const local = new Date(ms + offsetSeconds * 1000);
  const year = local.getUTCFullYear();
  const fraction = pad(local.getUTCMilliseconds(), 3).padEnd(6, '0').slice(0, digits).replace(/0+$/, '');
  const abs = Math.abs(offsetSeconds);
  const [h, m, s] = [Math.floor(abs / 3600), Math.floor((abs % 3600) / 60), abs % 60];
  const offset = `${offsetSeconds < 0 ? '-' : '+'}${pad(h)}${m || s ? `:${pad(m)}` : ''}${s ? `:${pad(s)}` : ''}`;
  const date = `${pad(year > 0 ? year : 1 - year, 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction ? `.${fraction}` : ''}`;
  return `${date} ${time}${offset}${year > 0 ? '' : ' BC'}`;
}

describe('timestamptzToIso', () => {
  it('reads the instant PostgreSQL printed in any time zone, as UTC with milliseconds', () => {
    expect(timestamptzToIso('2026-05-01 12:00:00.12+00')).toBe('2026-05-01T12:00:00.120Z');
    expect(timestamptzToIso('2026-05-01 14:00:00.12+02')).toBe('2026-05-01T12:00:00.120Z');
    expect(timestamptzToIso('2026-05-01 17:30:00.123456+05:30')).toBe('2026-05-01T12:00:00.123Z');
    expect(timestamptzToIso('2026-05-01 08:30:00-03:30')).toBe('2026-05-01T12:00:00.000Z');
    expect(timestamptzToIso('1850-01-01 00:53:28+00:53:28')).toBe('1850-01-01T00:00:00.000Z');
    expect(timestamptzToIso('0001-01-01 00:00:00+00 BC')).toBe('0000-01-01T00:00:00.000Z');
  });

  it('agrees with Date for every instant, offset and number of fraction digits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(-200, 0, 1), max: Date.UTC(9999, 11, 31) }),
        fc.integer({ min: -15 * 3600, max: 15 * 3600 }),
        fc.integer({ min: 0, max: 6 }),
        (ms, offsetSeconds, digits) => {
          const text = postgresText(ms, offsetSeconds, digits);
          const truncated =
            ms -
            (((ms % 1000) + 1000) % 1000) +
            (digits >= 3 ? ((ms % 1000) + 1000) % 1000 : Math.floor((((ms % 1000) + 1000) % 1000) / 10 ** (3 - digits)) * 10 ** (3 - digits));
          expect(timestamptzToIso(text), text).toBe(new Date(truncated).toISOString());
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuses a text that is not DateStyle ISO instead of guessing', () => {
    expect(() => timestamptzToIso('05/01/2026 14:00:00.12 CEST')).toThrow(/DateStyle ISO/);
  });
});
