export type { ListShape, RangedShape } from './listShape.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { Dialect } from '../../db/schema.ts';
import type { BucketSearch } from './bucketSearch.ts';
import type { KeyedCondition, KeyedCounts } from './keyedPlans.ts';
import type { ListShape, RangedShape } from './listShape.ts';
import type { ListTuning } from './listTuning.ts';
import type { MetadataCount } from './metadataPlans.ts';

/** Where a list's total comes from (docs/performance.md#plans). */
export type TotalWay =
  | { readonly from: 'list_counts' }
  | { readonly from: 'list_buckets' }
  | { readonly from: 'metadata'; readonly count: MetadataCount }
  | { readonly from: 'keyed-index'; readonly column: string }
  | { readonly from: 'rows' };

/** How a page's rows are written: which index is read, never which rows come. */
export interface RowsWriting {
  /**
   * SQLite, where counts choose (rangePlans.ts, keyedPlans.ts): true, the sort's index walked, the
   * range or keyed filter tested row by row; false, their own index read and the ids sorted.
   */
  readonly walk?: boolean;
  /** SQLite: the column of a keyed filter whose counts chose its plan. */
  readonly keyed?: string;
  /** A metadata search: the list's index walked, the entries probed; or the entries of searched key `lead` drive. */
  readonly metadata?: { readonly probe: true } | { readonly lead: number };
}

/**
 * How one page is found: a union of the strategies, each named once. The first four read the
 * total and the rows in one statement (one snapshot, one round trip); `snapshot` reads them
 * statement by statement in one read-only transaction.
 */
export type PagePlan =
  /** Any page of a metadata search, in its entries' order (entryOrderPage.ts). */
  | { readonly way: 'entries'; readonly list: ListShape; readonly lead?: number }
  /** A first page (a skip below plainOffsetUpTo) by OFFSET; PostgreSQL may skip it in the sort's index alone. */
  | { readonly way: 'offset'; readonly list: ListShape; readonly total: TotalWay; readonly rows: RowsWriting; readonly skipInIndex: boolean }
  /** PostgreSQL: a first page of a range off the sort, both plans in the statement, chosen by its counts (rangePlanStatement.ts). */
  | { readonly way: 'range-choice'; readonly list: RangedShape }
  /** PostgreSQL: a first page of a metadata search, both plans in the statement (metadataPlanStatement.ts); a tuning may fix one. */
  | { readonly way: 'metadata-choice'; readonly list: ListShape; readonly choose: 'counts' | 'probe' | 'drive' }
  /** A deep page placed by bucket counts (findInBuckets.ts), then a short skip. */
  | { readonly way: 'buckets'; readonly list: ListShape; readonly total: TotalWay; readonly search: BucketSearch; readonly rows: RowsWriting }
  /** A deep page no counts place: its total, then its rows (planRows), in one snapshot. */
  | { readonly way: 'snapshot'; readonly list: ListShape; readonly total: TotalWay; readonly rows: RowsWriting };

export type OneStatementPlan = Exclude<PagePlan, { way: 'snapshot' }>;
export type SnapshotPlan = Extract<PagePlan, { way: 'snapshot' }>;

/** A page asked of a list: what the planner starts from, before any count is read. */
export interface PageRequest {
  readonly dialect: Dialect;
  readonly tuning: ListTuning;
  readonly paging: PageParams;
  /** The list as asked (its query not yet written for a plan). */
  readonly whole: ListShape;
  /** A metadata search read in its entries' order: every page is one statement, as a first page is. */
  readonly entryOrder: boolean;
  /** One statement reads the page by OFFSET (or in entries' order). */
  readonly asFirstPage: boolean;
  /** A deep page's bucket counts, when any place it. */
  readonly placed?: BucketSearch;
}

/** A count the plan is chosen from, read before the page's statement (choices only: every answer reads the same rows). */
export type CountQuestion =
  /** SQLite: a ranged list's slice and its rows in the buckets wholly inside the range (rangePlans.ts). */
  | { readonly ask: 'range-share'; readonly list: RangedShape }
  /** SQLite: the rows of a placed page's amount slivers, in the buckets wholly inside each (amountClassRanges.ts). */
  | { readonly ask: 'sliver-rows'; readonly slivers: readonly RangedShape[] }
  /** SQLite: a keyed filter's rows, and the list's size without it (keyedPlans.ts). */
  | { readonly ask: 'keyed'; readonly list: ListShape; readonly condition: KeyedCondition }
  /** SQLite: a metadata search's counts (metadataPlans.ts). */
  | { readonly ask: 'metadata'; readonly list: ListShape }
  /** The entry counts of the keys that could lead an entry-order search. */
  | { readonly ask: 'entry-leads'; readonly list: ListShape };

/** A metadata search's counts (metadataShareSelect): what its plans are chosen from. */
export interface MetadataCounts {
  readonly entries: number;
  readonly matches: number;
  readonly lead: number;
  readonly size: number;
  readonly slice: number | null;
}

/** The answers read so far, by question. */
export interface PlanCounts {
  readonly rangeShare?: { readonly slice: number; readonly covered: number };
  readonly sliverRows?: number;
  readonly keyed?: KeyedCounts;
  readonly metadata?: MetadataCounts;
  readonly entryLeads?: Readonly<Record<string, number | string>>;
}

/** How a snapshot plan's rows are read once its total is known (planRows). */
export interface RowsPlan {
  /** Counted from the end of the list (the nearer end): the query reversed, the rows turned back. */
  readonly fromEnd: boolean;
  readonly skip: number;
  readonly limit: number;
  /** A created_at range in amount order: placed in its amount class first, when that costs less than `read` (amountOrderPage.ts). */
  readonly classesFirst?: { readonly rival: number | undefined };
  readonly read: 'offset' | 'sorted-ids' | 'deferred-join' | 'skip-hops';
}
