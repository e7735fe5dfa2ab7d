/**
 * What one payment create costs the counters once its list change is folded, per counter table:
 * every structure that speeds a read has this price on every write. Asserted on both databases by
 * test/lists/counters/rowsPerWrite.e2e.test.ts; shown in docs/performance.md's plan table. A new
 * slice, class or level changes these numbers in the same commit, with a decision record.
 */
export const FOLDED_ROWS_PER_CREATE = {
  /** Every subset of the payment's 4 counted dimensions (16), and its events' counts (3). */
  list_counts: 19,
  /** 38 slice rows (levels × sort keys × slices) and 14 amount-class rows (decision 0041). */
  list_buckets: 52,
  /** Per metadata key the payment carries. */
  metadata_value_counts: 1,
} as const;
