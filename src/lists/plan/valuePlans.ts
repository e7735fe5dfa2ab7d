import type { ListQuery } from '../request/parseListQuery.ts';

/**
 * The columns whose filter values are only ever one of a closed set or a short code, checked by
 * the parser (an enum, or `[A-Z]{3}`): safe to write into SQL text, and few enough distinct texts
 * that planning each is cheap.
 */
const LITERAL_SAFE = new Set(['status', 'currency', 'card_brand']);

/**
 * PostgreSQL: whether a list counted row by row (no maintained count covers it) should have its
 * filter values in the SQL text rather than as parameters: two or more of the columns above
 * narrow it (`card_brand=visa & status=failed`), so several indexes serve it and which is right
 * depends on the values. A generic plan (plan_cache_mode = force_generic_plan, sessionSettings.ts)
 * knows none and prices every value of a column alike: for `visa × failed × amount ≥ 1000` at 1M
 * payments it counted along `payments_tenant_brand_amount` (300,359 entries, each row read for
 * its status: 2.0 s) where the values' statistics take `payments_tenant_status_amount` (62,725
 * entries: 0.3–0.4 s). Written as literals, the statement is planned for its values on every call
 * (sent unnamed, as a literal range is: rangePlans.ts), a few hundred µs. Only how the SQL is
 * written changes, never which rows match.
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
