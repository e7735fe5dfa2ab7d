import { StartupFailure } from './startupFailure.ts';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * `--expires` / `--grace`: a duration from now (`90d`, `24h`, `30m`, `45s`) or an ISO 8601
 * time. A time in the past is refused; `0` (a grace of none) only where allowed.
 */
export function parseExpiry(text: string, flag: string, { zeroAllowed = false } = {}, now = Date.now()): Date {
  const duration = /^(\d{1,9})([smhd])$/.exec(text);
  if (duration) return new Date(now + Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]);
  if (text === '0' && zeroAllowed) return new Date(now);
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at) || at <= now) {
    throw new StartupFailure(`${flag} ${text}: give a duration (90d, 24h, 30m, 45s${zeroAllowed ? ', 0' : ''}) or a future ISO 8601 time`, 2);
  }
  return new Date(at);
}
