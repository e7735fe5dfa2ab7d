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
  | { kind: 'timeRange' }; // filter[f][gte|gt|lte|lt]=RFC 3339

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
