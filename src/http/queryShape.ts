import { issue, validationProblem, type Problem } from '../core/problem.ts';
import { bracketName } from '../core/queryErrors.ts';

/**
 * Query-string shapes that qs would read as something other than what was written are refused here
 * with a 422 naming the parameter: percent-escapes that are not UTF-8, a malformed `name[key]…`,
 * `__proto__` at any depth (qs drops it, unfiltering the list), and a name given both with a value
 * and with keys (qs merges them).
 */

const NAME = /^[^[\]]+(?:\[[^[\]]*\])*$/;

/** `filter[amount][gte]` → `['filter', 'amount', 'gte']`, for a name that matched NAME. */
function segmentsOf(name: string): string[] {
  const open = name.indexOf('[');
  if (open === -1) return [name];
  return [name.slice(0, open), ...[...name.slice(open).matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
}

/** `+` is a space, then percent-decoding; undefined when the escapes are not UTF-8. */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** The first malformed shape among the pairs of a query string, as the 422 that names it. */
export function queryShapeProblem(pairs: string[]): Problem | undefined {
  const withValue = new Map<string, string>();
  const withKeys = new Map<string, string>();
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const name = decoded(rawName);
    if (name === undefined) return validationProblem({ [rawName]: [issue('invalid_encoding', 'is not valid percent-encoded UTF-8')] });
    if (eq !== -1 && decoded(pair.slice(eq + 1)) === undefined)
      return validationProblem({ [name]: [issue('invalid_encoding', 'has a value that is not valid percent-encoded UTF-8')] });
    if (name === '') return validationProblem({ query: [issue('unnamed_parameter', 'has a parameter without a name')] });
    if (!NAME.test(name)) {
      return validationProblem({
        [name]: [issue('malformed_name', 'is not a well-formed parameter name: name or name[key][key], brackets balanced and nothing after them')],
      });
    }
    const segments = segmentsOf(name);
    if (segments.includes('__proto__')) return validationProblem({ [name]: [issue('reserved_name', 'uses __proto__ as a name, which is not accepted')] });
    // Keyed by the segments, so `filter[amount]` and `filter%5Bamount%5D` are one name.
    withValue.set(segments.join('\u0000'), name);
    for (let depth = 1; depth < segments.length; depth++) withKeys.set(segments.slice(0, depth).join('\u0000'), name);
  }
  for (const [path] of withValue) {
    const keyed = withKeys.get(path);
    if (keyed !== undefined)
      return validationProblem({ [bracketName(path.split('\u0000'))]: [issue('value_and_keys', `is given both as a value and with keys (${keyed})`)] });
  }
  return undefined;
}
