/**
 * What a list endpoint accepts besides paging: its filters and sort fields. One spec per
 * resource drives the TypeBox query schema (validation + docs), parsing, and the SQL.
 */
export type FilterKind =
  | { kind: 'enum'; values: readonly string[] } // filter[f]=a,b → any of
  | { kind: 'code'; pattern: string; hint: string } // filter[f]=a,b, each matching pattern
  | { kind: 'exact' } // filter[f]=value, one value, compared as is
  | { kind: 'exactInsensitive' } // one value, case-insensitive equality (column: the folded text, caseFold.ts)
  | { kind: 'contains' } // one value, case-insensitive substring (column: the folded text)
  | { kind: 'integerRange' } // filter[f][gte|gt|lte|lt]=n
  | { kind: 'timeRange' } // filter[f][gte|gt|lte|lt]=RFC 3339
  | { kind: 'metadata' }; // filter[f][key]=a,b → any of, exact strings; several keys all hold (column: the entry table, metadataEntries.ts)

export interface ListSpec {
  /** Resource name used in messages. */
  name: string;
  filters: Record<string, FilterKind & { column: string }>;
  /** Sortable fields → column. `id` is always the final tie-breaker. */
  sorts: Record<string, string>;
  defaultSort: string;
}

export const RANGE_OPERATORS = ['gte', 'gt', 'lte', 'lt'] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];

type OneOrMany<T> = T | readonly T[];
/** `filter[field][gte|gt|lte|lt]`. */
export type Range<T> = { [Op in RangeOperator]?: T };

/** What a client gives a filter of this kind (`Instant`: how it writes a time). */
export type FilterValue<K extends FilterKind, Instant> = K extends { kind: 'enum'; values: ReadonlyArray<infer V> }
  ? OneOrMany<V>
  : K extends { kind: 'code' }
    ? OneOrMany<string>
    : K extends { kind: 'integerRange' }
      ? Range<number>
      : K extends { kind: 'timeRange' }
        ? Range<Instant>
        : K extends { kind: 'metadata' }
          ? Record<string, OneOrMany<string>>
          : string;

/** The filters of a list, as a client writes them: derived from its spec, never restated. */
export type FiltersOf<S extends ListSpec, Instant = string> = { [F in keyof S['filters']]?: FilterValue<S['filters'][F], Instant> };

/** The fields a list sorts by. */
export type SortFieldOf<S extends ListSpec> = keyof S['sorts'] & string;
