const UNITS = [
  { ms: 86_400_000, name: 'day' },
  { ms: 3_600_000, name: 'hour' },
  { ms: 60_000, name: 'minute' },
  { ms: 1000, name: 'second' },
] as const;

/**
 * A duration in the largest unit it holds at least once, to one decimal (`3 days`, `1.5 hours`,
 * `10 minutes`, `400 ms`): read at a glance, where a fixed unit said "0 h" for 10 minutes.
 */
export function durationText(ms: number): string {
  const unit = UNITS.find((u) => ms >= u.ms);
  if (!unit) return `${Math.round(ms)} ms`;
  const count = Math.round((ms / unit.ms) * 10) / 10;
  return `${count} ${unit.name}${count === 1 ? '' : 's'}`;
}
