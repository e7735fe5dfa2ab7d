import { describe, expect, it } from 'vitest';
import { LONGEST_VACUUM_PAUSE_MS, vacuumPauseAfter } from '../../../src/lists/counters/countFolder.ts';

/** How soon the folder vacuums list_changes again (src/lists/counters/countFolder.ts, decision 0100). */
describe('the pause before the next vacuum of list_changes', () => {
  it('is the setting after a vacuum that worked, however long it was while they failed', () => {
    expect(vacuumPauseAfter(1_000, false, 1_000)).toBe(1_000);
    expect(vacuumPauseAfter(LONGEST_VACUUM_PAUSE_MS, false, 1_000)).toBe(1_000);
  });

  it('grows fourfold with each failure, up to five minutes', () => {
    const pauses: number[] = [];
    let pause = 1_000;
    for (let i = 0; i < 6; i++) pauses.push((pause = vacuumPauseAfter(pause, true, 1_000)));
    expect(pauses).toEqual([4_000, 16_000, 64_000, 256_000, 300_000, 300_000]);
  });

  it('waits at least four seconds after a failure even when vacuums may run back to back', () => {
    expect(vacuumPauseAfter(0, true, 0)).toBe(4_000);
  });
});
