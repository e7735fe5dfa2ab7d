import type { ListQuery } from '../request/parseListQuery.ts';

/**
 * The columns whose filter values are only ever one of a closed set or a short code, checked by
 * the parser (an enum, or `[A-Z]{3}`): safe to write into SQL text, and few enough distinct texts
 * that planning each is cheap.
 */
const LITERAL_SAFE = new Set(['status', 'currency', 'card_brand']);

/**
 * PostgreSQL: whether a list counted row by row should have its filter values in the SQL text: two or more of the
 * columns above narrow it, so several indexes serve it and the right one depends on the values, which a generic
 * plan does not know (it prices every value alike). As literals the statement is planned for its values on every
 * call, sent unnamed as a literal range is; only the SQL changes, never the rows (decision 0029).
 */
export function picksIndexByValues(query: ListQuery): boolean {
  const columns = new Set(query.conditions.flatMap((c) => (c.match === 'in' && LITERAL_SAFE.has(c.column) ? [c.column] : [])));
  return columns.size >= 2;
}

/** `query` with the values of its filters on the columns above written as literals. */
export function withValuesLiteral(query: ListQuery): ListQuery {
  return {
    ...query,
    conditions: query.conditions.map((c) => (c.match === 'in' && LITERAL_SAFE.has(c.column) ? { ...c, written: 'literal' as const } : c)),
  };
}

/** Whether any condition of `query` is written as a literal (its statement is then planned per call, not prepared). */
export function hasLiteral(query: ListQuery): boolean {
  return query.conditions.some((c) => (c.match === 'range' || c.match === 'in') && c.written === 'literal');
}
