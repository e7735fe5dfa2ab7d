import qs from 'qs';

/**
 * Bracket-aware query parsing (`filter[amount][gte]=5` → nested objects) with bounds, so a
 * hostile query cannot make us build deep or huge structures. Repeated keys become arrays,
 * which the schemas then reject for every parameter that takes one value.
 */
export const QUERY_LIMITS = { depth: 3, parameterLimit: 100, arrayLimit: 20 };

export function parseQueryString(text: string): Record<string, unknown> {
  return qs.parse(text, {
    depth: QUERY_LIMITS.depth,
    parameterLimit: QUERY_LIMITS.parameterLimit,
    arrayLimit: QUERY_LIMITS.arrayLimit,
    allowPrototypes: false,
    allowDots: false,
    comma: false,
    duplicates: 'combine',
  });
}
