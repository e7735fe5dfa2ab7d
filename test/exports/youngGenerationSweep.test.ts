import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { YoungGenerationSweep } from '../../src/exports/youngGenerationSweep.ts';

type GcEntry = PerformanceEntry & { detail?: { kind: number } };

/** The young-generation collections V8 reports as having started while `work` ran. */
async function minorCollectionsDuring(work: () => void): Promise<GcEntry[]> {
  const entries: GcEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...(list.getEntries() as GcEntry[])));
  observer.observe({ entryTypes: ['gc'] });
  const from = performance.now();
  work();
  const to = performance.now();
  // Entries are delivered on a later turn of the loop.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return entries.filter((e) => e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR && e.startTime >= from && e.startTime <= to);
}

describe('a young-generation sweep', () => {
  it('collects the young generation once the bytes handed on add up, in a process started without --expose-gc', async () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    const sweep = new YoungGenerationSweep(1000);
    expect(await minorCollectionsDuring(() => sweep.add(999))).toHaveLength(0);
    expect(await minorCollectionsDuring(() => sweep.add(1))).toHaveLength(1);
    expect(await minorCollectionsDuring(() => sweep.add(999))).toHaveLength(0);
  });
});
