import type { ClassPlacement } from './amountOrderClasses.ts';
/** Below this many skipped rows OFFSET itself is cheapest; past it a page is found through bucket counts or the index alone. */
export const DEFERRED_JOIN_FROM = 2000;

/**
 * SQLite cannot interrupt one statement, and an OFFSET of 900,000 is a single ~0.1 s step that
 * holds the event loop; a deep page of a list without bucket counts skips there in hops of this
 * many index entries (a few ms each), and the driver yields between them. Smaller hops cost more
 * statements: measured at 1M rows, 10k hops took ~1.8× the single OFFSET's time, 50k ~1.4×.
 */
export const SKIP_HOP = 50_000;

/** Where plain OFFSET stops and the deep ways start; the defaults are what the benchmark chose. */
export interface ListTuning {
  /** Skips below this are plain OFFSET (from the nearer end). */
  plainOffsetUpTo: number;
  /** SQLite's skip hops for lists without bucket counts. */
  skipHop: number;
  /** A metadata search's plan (metadataPlans.ts): chosen by its counts (absent), or always one of them (tests). */
  metadataPlan?: 'probe' | 'drive';
  /** A created_at range in amount order: its deep pages placed by the amount classes by cost (absent), or always or never (tests). */
  classPlacement?: ClassPlacement;
}

export const DEFAULT_TUNING: ListTuning = { plainOffsetUpTo: DEFERRED_JOIN_FROM, skipHop: SKIP_HOP };

/**
 * How a page is found, for tests and benchmarks (`X-Page-Strategy`): `offset`; `buckets` (decision 0003);
 * `deferred-join` or `skip-hops` for deep pages without buckets (decision 0005); `sorted-ids` (decision 0025);
 * `entries` (decision 0023); `classes` (decision 0026); `past-end` (no row read). `-from-end`: counted from the
 * end of the list (the nearer end).
 */
export type PageStrategy = `${'offset' | 'buckets' | 'deferred-join' | 'skip-hops' | 'sorted-ids' | 'classes'}${'' | '-from-end'}` | 'entries' | 'past-end';
