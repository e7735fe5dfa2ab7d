import type { Dialect } from '../../db/schema.ts';

/**
 * What each database leaves to our planner and what it plans itself, in one place: SQLite keeps
 * no statistics, so counts read before a statement choose for it; PostgreSQL plans well from its
 * statistics and values, so it gets literals and both plans in one statement instead.
 */
export interface DialectPlanning {
  /** Counts read before the page's statement choose a range's, a keyed filter's or a metadata search's plan (decisions 0014, 0028, 0020). */
  readonly countsChooseFirst: boolean;
  /** A first page of a range off the sort or of a metadata search holds both plans, chosen in the statement by its counts. */
  readonly choosesInStatement: boolean;
  /** A range off the sort, or values several indexes serve, written as literals: planned per value (decision 0014). */
  readonly writesLiterals: boolean;
  /** A list of several dimensions is read in the leading one's index, which carries the others (decision 0029). */
  readonly readsLeadDimension: boolean;
  /** A first page from row 100 on skips its OFFSET in the sort's index alone (decision 0005). */
  readonly skipsInIndex: boolean;
  /** The page's one statement checks the API key, when no count is read before it (decision 0017). */
  readonly checksKeyInStatement: boolean;
  /** A probe reads the row it tests, so it takes the row's created_at too. */
  readonly probeReadsRow: boolean;
  /** How a deep page that no counts place reaches its rows. */
  readonly deepRead: 'deferred-join' | 'skip-hops';
}

export const PLANNING: Readonly<Record<Dialect, DialectPlanning>> = {
  sqlite: {
    countsChooseFirst: true,
    choosesInStatement: false,
    writesLiterals: false,
    readsLeadDimension: true,
    skipsInIndex: false,
    checksKeyInStatement: false,
    probeReadsRow: false,
    deepRead: 'skip-hops',
  },
  postgres: {
    countsChooseFirst: false,
    choosesInStatement: true,
    writesLiterals: true,
    readsLeadDimension: false,
    skipsInIndex: true,
    checksKeyInStatement: true,
    probeReadsRow: true,
    deepRead: 'deferred-join',
  },
};
