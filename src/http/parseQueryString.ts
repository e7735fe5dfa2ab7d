import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import qs from 'qs';
import { issue, Problem, validationProblem } from '../core/problem.ts';
import { invalidTextIn } from './invalidText.ts';
import { decodedKey } from '../lists/index.ts';
import { bracketName } from '../core/queryErrors.ts';
import { queryShapeProblem } from './queryShape.ts';

/**
 * Bracket-aware query parsing (`filter[amount][gte]=5` → nested objects) with bounds, so a hostile
 * query cannot make us build deep or huge structures. Repeated keys become arrays, which the schemas
 * reject where one value is taken. Beyond a bound the request is refused naming the parameter, never
 * parsed into something silently different (qs on its own truncates and flattens).
 */
export const QUERY_LIMITS = { maxLength: 8192, depth: 3, parameterLimit: 100, arrayLimit: 20 };

const QUERY_PROBLEM = Symbol('queryProblem');

type ParsedQuery = Record<string, unknown> & { [QUERY_PROBLEM]?: Problem };

/** The first bound a query string breaks, or the first malformed shape in it, as the problem to answer it with. */
export function queryLimitProblem(text: string): Problem | undefined {
  if (text.length > QUERY_LIMITS.maxLength) {
    return new Problem('query-too-long', {
      detail: `The query string has ${text.length} characters; at most ${QUERY_LIMITS.maxLength} are accepted.`,
    });
  }
  const pairs = text.split('&');
  if (pairs.length > QUERY_LIMITS.parameterLimit) {
    return validationProblem(
      { query: [issue('too_many_parameters', `has ${pairs.length} parameters; at most ${QUERY_LIMITS.parameterLimit} are accepted`)] },
      `The query string has more than ${QUERY_LIMITS.parameterLimit} parameters.`,
    );
  }
  const seen = new Map<string, number>();
  for (const pair of pairs) {
    if (pair === '') continue;
    const key = decodedKey(pair);
    const groups = key.slice(Math.max(key.indexOf('['), 0)).match(/\[[^[\]]*]/g)?.length ?? 0;
    if (groups > QUERY_LIMITS.depth) {
      return validationProblem({ [key]: [issue('too_deep', `nests more than ${QUERY_LIMITS.depth} levels of brackets`)] });
    }
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count > QUERY_LIMITS.arrayLimit) {
      return validationProblem({ [key]: [issue('too_many_values', `is repeated more than ${QUERY_LIMITS.arrayLimit} times`)] });
    }
  }
  return queryShapeProblem(pairs);
}

/**
 * The router's query parser. It must not throw (a throw here escapes Fastify's request
 * handling and takes the process down), so a broken bound travels on the parsed object and
 * `rejectBadQuery` raises it once the request is inside Fastify's hooks.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  const problem = queryLimitProblem(text);
  if (problem) return { [QUERY_PROBLEM]: problem } as ParsedQuery;
  let parsed: Record<string, unknown>;
  try {
    parsed = qs.parse(text, {
      depth: QUERY_LIMITS.depth,
      strictDepth: true,
      parameterLimit: QUERY_LIMITS.parameterLimit,
      arrayLimit: QUERY_LIMITS.arrayLimit,
      throwOnLimitExceeded: true,
      // Null-prototype objects: a key named like an Object.prototype member (filter[constructor]) is
      // kept as an ordinary key, so the schema names it, instead of being dropped without a word.
      plainObjects: true,
      allowPrototypes: false,
      allowDots: false,
      comma: false,
      duplicates: 'combine',
    });
  } catch (error) {
    // qs's own bounds (an array index past arrayLimit, say); the checks above catch the rest first.
    return { [QUERY_PROBLEM]: validationProblem({ query: [issue('malformed_query', (error as Error).message)] }) } as ParsedQuery;
  }
  const invalid = invalidTextIn(parsed);
  if (invalid) {
    return { [QUERY_PROBLEM]: validationProblem({ [bracketName(invalid.path)]: [issue('invalid_text', invalid.message)] }) } as ParsedQuery;
  }
  return parsed;
}

/** onRequest: answers a query that broke a bound with its problem (414 or 422). */
export function rejectBadQuery(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done((request.query as ParsedQuery | undefined)?.[QUERY_PROBLEM]);
}
