import { issue, validationProblem, type FieldErrors } from '../../core/problem.ts';
import { RANGE_OPERATORS, type ListSpec, type RangeOperator } from './listSpec.ts';
import { bracketName } from '../../core/queryErrors.ts';
import { filterMessage, MAX_FILTER_VALUES } from './listQuerySchema.ts';
import { caseFold } from './caseFold.ts';
import { METADATA_KEY_PATTERN } from '../../core/metadataRules.ts';

const METADATA_KEY = new RegExp(METADATA_KEY_PATTERN);

/** Values of an any-of filter (`a,b`), each once; a problem when there are more than a filter takes. */
function anyOf(given: string, name: string[], errors: FieldErrors): string[] | undefined {
  const values = [...new Set(given.split(','))];
  if (values.length <= MAX_FILTER_VALUES) return values;
  errors[bracketName(name)] = [issue('too_many_values', `lists ${values.length} values; at most ${MAX_FILTER_VALUES} are accepted`)];
  return undefined;
}

/**
 * `filter[metadata][key]=a,b` for each key: one condition per key (all must hold). Keys and values
 * the schema refuses are skipped here (it names them).
 */
function metadataConditions(column: string, filter: string, given: Record<string, string>, errors: FieldErrors): Condition[] {
  const conditions: Condition[] = [];
  for (const [key, text] of Object.entries(given)) {
    if (!METADATA_KEY.test(key) || typeof text !== 'string') continue;
    const values = anyOf(text, ['filter', filter, key], errors);
    if (values) conditions.push({ column, match: 'metadata', key, values });
  }
  return conditions;
}

export type Condition =
  /**
   * `written` (in, equals): how the listing writes it in SQL, never which rows match: `unindexed`,
   * `+column` on SQLite (lists/sql/keyedFilters.ts, leadDimension.ts); `literal`, the values in the
   * text (PostgreSQL, lists/plan/valuePlans.ts); absent: parameters.
   */
  | { column: string; match: 'in'; values: string[]; written?: 'unindexed' | 'literal'; notInEntries?: true }
  | { column: string; match: 'equals'; value: string; written?: 'unindexed' }
  | { column: string; match: 'contains'; value: string }
  /** `written`: how the listing writes it in SQL, never which rows match (lists/plan/rangePlans.ts); absent: a parameter. */
  | { column: string; match: 'range'; op: RangeOperator; value: string | number; written?: 'literal' | 'unindexed' | 'opaque'; notInEntries?: true }
  /**
   * Records with an entry `key` = any of `values` in the metadata entry table `column` (metadataEntries.ts).
   * `written`: how the listing writes it, never which rows match (lists/plan/metadataPlans.ts); absent: the entries drive.
   */
  | {
      column: string;
      match: 'metadata';
      key: string;
      values: string[];
      written?: 'probe' | 'dated probe';
      /** Other keys the record must hold too, probed from each of this key's entries (lists/sql/leadEntries.ts); the listing's writing, never the parser's. */
      heldWith?: Array<{ key: string; values: string[] }>;
    };

export interface SortKey {
  column: string;
  direction: 'asc' | 'desc';
  /** How the column is written in SQL, to steer the plan only (lists/plan/rangePlans.ts): `unindexed`, `+column` on SQLite. */
  written?: 'unindexed';
}

export interface ListQuery {
  conditions: Condition[];
  /** Requested keys; `id` (in the last key's direction) is appended when building SQL. */
  sort: SortKey[];
  /**
   * The metadata entries' copies of a payment's status and amount may be behind (changes waiting
   * to be folded, lists/sql/entriesCurrent.ts): such conditions are marked `notInEntries`, and
   * entries are not walked in amount order.
   */
  entriesBehind?: true;
}

export interface RawListQuery {
  sort?: string;
  filter?: Record<string, string | Record<string, string>>;
}

/** The digits of a time's fraction of a second past the millisecond, when any is not 0. */
const PAST_MILLISECONDS = /T\d\d:\d\d:\d\d\.\d{3}(\d*[1-9]\d*)/;

/**
 * Normalises a time filter to the stored form (UTC, milliseconds) so text and timestamptz compare
 * alike. Every stored time is a whole millisecond, so a bound between two milliseconds
 * (`…00.000000001Z`) is moved to the one that gives the same answer: up for `gte` and `lt`, down
 * (where Date.parse cut it) for `gt` and `lte`. Exact, not rounded.
 */
function normaliseTime(value: string, op: RangeOperator): string | undefined {
  const parsed = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(parsed)) return undefined;
  const between = PAST_MILLISECONDS.test(value);
  const ms = between && (op === 'gte' || op === 'lt') ? parsed + 1 : parsed;
  const iso = new Date(ms).toISOString();
  // Years 0001–9999 only: PostgreSQL has no year 0, and beyond 9999 ISO strings grow a sign.
  if (!/^(?!0000)[0-9]{4}-/.test(iso)) return undefined;
  // Date.parse rolls 2026-02-30 over to March; a calendar date must survive the round trip.
  return iso.slice(0, 10) === value.slice(0, 10) || value.length > 10 ? iso : undefined;
}

/** Turns a schema-checked list query into conditions and sort keys; pure. Throws a 422 problem with every mistake the schema cannot see. */
export function parseListQuery(spec: ListSpec, raw: RawListQuery): ListQuery {
  const { query, errors } = readListQuery(spec, raw);
  if (Object.keys(errors).length > 0) throw validationProblem(errors);
  return query;
}

/**
 * The conditions and sort keys of a list query, and what is wrong with it beyond the schema's
 * checks (a calendar date that does not exist, a sort field named twice, too many values). Reads
 * a query the schema refused too, skipping what is not of the expected shape, so a 422 can list
 * these mistakes beside the schema's (one round).
 */
export function readListQuery(spec: ListSpec, raw: RawListQuery): { query: ListQuery; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const conditions: Condition[] = [];
  const filters = typeof raw.filter === 'object' && raw.filter !== null && !Array.isArray(raw.filter) ? raw.filter : {};
  for (const [name, given] of Object.entries(filters)) {
    const filter = Object.hasOwn(spec.filters, name) ? spec.filters[name] : undefined;
    if (!filter || given === undefined || Array.isArray(given) || (typeof given !== 'string' && typeof given !== 'object') || given === null) continue;
    const column = filter.column;
    if (filter.kind === 'metadata') {
      if (typeof given === 'object') conditions.push(...metadataConditions(column, name, given, errors));
      continue;
    }
    if (typeof given === 'string') {
      if (filter.kind === 'enum' || filter.kind === 'code') {
        const values = anyOf(given, ['filter', name], errors);
        if (values) conditions.push({ column, match: 'in', values });
      } else if (filter.kind === 'exact') conditions.push({ column, match: 'equals', value: given });
      // Case-insensitive filters compare folded text with the column that stores it folded.
      else if (filter.kind === 'exactInsensitive') conditions.push({ column, match: 'equals', value: caseFold(given) });
      else if (filter.kind === 'contains') conditions.push({ column, match: 'contains', value: caseFold(given) });
      continue;
    }
    for (const op of RANGE_OPERATORS) {
      const text = given[op];
      if (typeof text !== 'string') continue;
      if (filter.kind === 'integerRange') {
        conditions.push({ column, match: 'range', op, value: Number(text) });
      } else {
        const time = normaliseTime(text, op);
        if (time === undefined) errors[bracketName(['filter', name, op])] = [issue('invalid_filter_value', filterMessage(filter))];
        else conditions.push({ column, match: 'range', op, value: time });
      }
    }
  }

  const sort: SortKey[] = [];
  const seen = new Set<string>();
  for (const part of (typeof raw.sort === 'string' ? raw.sort : spec.defaultSort).split(',')) {
    const field = part.replace(/^-/, '');
    if (!Object.hasOwn(spec.sorts, field)) continue; // the schema's to name
    if (seen.has(field)) {
      errors.sort = [issue('repeated_sort', `names ${field} more than once`)];
      continue;
    }
    seen.add(field);
    sort.push({ column: spec.sorts[field], direction: part.startsWith('-') ? 'desc' : 'asc' });
  }
  return { query: { conditions, sort }, errors };
}
