import { PROBLEM_CATALOG, problemTypeUri, TYPE_BASE, type ProblemKind, type ProblemTypeEntry } from '../core/problemCatalog.ts';

const entries = Object.entries(PROBLEM_CATALOG) as Array<[ProblemKind, ProblemTypeEntry]>;

/** The catalog's types answered with `status`, in catalog order. */
function typesWith(status: number): Array<[ProblemKind, ProblemTypeEntry]> {
  return entries.filter(([, entry]) => entry.status === status);
}

/** A problem document of this type, as the API writes it (the catalog's example detail, or the operation's own). */
export function problemExample(kind: ProblemKind, detail?: string) {
  const entry: ProblemTypeEntry = PROBLEM_CATALOG[kind];
  return {
    type: problemTypeUri(kind),
    title: entry.title,
    status: entry.status,
    detail: detail ?? entry.example,
    ...(entry.exampleErrors ? { errors: entry.exampleErrors } : {}),
    ...(entry.exampleCodes ? { codes: entry.exampleCodes } : {}),
  };
}

export interface RouteShape {
  method: string;
  authenticated: boolean;
  hasPathParams: boolean;
  hasQuery: boolean;
  /** Answers in one of several formats by Accept (exports): 406 when none is acceptable. */
  negotiated?: boolean;
  hasBody: boolean;
}

/** Which problems an operation can answer with, from what it takes. */
export function problemStatuses(route: RouteShape): number[] {
  const statuses = new Set<number>();
  if (route.authenticated) [401, 403, 429].forEach((s) => statuses.add(s));
  if (route.hasPathParams) statuses.add(404);
  if (route.hasQuery) statuses.add(422);
  if (route.negotiated) statuses.add(406);
  if (route.method === 'POST' || route.method === 'PATCH') [400, 409, 415, 422].forEach((s) => statuses.add(s));
  if (route.method === 'DELETE') statuses.add(409);
  statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

/** The operation a problem response documents: its path and the scope it needs. */
export interface OperationShape {
  url: string;
  scope?: string;
}

/**
 * The example an operation shows for a status: about its own resource and scope (an account's
 * 404 names an account, a read's 403 the read scope, an account's 409 its state, a payment
 * action's its status), else the first catalog type of that status.
 */
function exampleOf(status: number, types: Array<[ProblemKind, ProblemTypeEntry]>, operation?: OperationShape) {
  if (!operation) return problemExample(types[0][0]);
  const onPayment = operation.url.includes(':payment');
  if (status === 404)
    return problemExample('not-found', onPayment ? 'No payment pay_01JDQ7ZK3V6M8Y2W4T9N5R1B0C.' : 'No account acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C.');
  if (status === 403) return problemExample('forbidden', `This API key lacks the ${operation.scope ?? 'read'} scope.`);
  if (status === 409 && onPayment) return problemExample('invalid-transition');
  if (status === 409 && operation.url.startsWith('/v3/accounts/')) return problemExample('conflict', 'A closed account cannot be changed.');
  if (status === 409 && operation.url === '/v3/accounts') return problemExample('idempotency-in-flight');
  return problemExample(types[0][0]);
}

/**
 * A response entry in @fastify/swagger's `content` form, so it is documented as problem+json:
 * every catalog type with this status described, an example fit for the operation.
 */
export function problemResponse(status: number, operation?: OperationShape) {
  const types = typesWith(status);
  const headers: Record<string, { description: string; type: string }> = {};
  for (const [, entry] of types) {
    for (const [name, value] of Object.entries(entry.headers ?? {})) headers[name] = { description: value, type: 'string' };
    if (entry.retryable) headers['retry-after'] = { description: 'Seconds to wait before retrying', type: 'integer' };
  }
  return {
    description: types.map(([kind, entry]) => `\`${kind}\`: ${entry.description}`).join('; '),
    ...(Object.keys(headers).length ? { headers } : {}),
    content: { 'application/problem+json': { schema: { $ref: 'Problem#' }, example: exampleOf(status, types, operation) } },
  };
}

/** Every problem type as a Markdown table, for the document's description. */
export function problemTypesTable(): string {
  const rows = entries.map(([kind, entry]) => `| \`${kind}\` | ${entry.status} | ${entry.title} | ${entry.description}${entry.retryable ? ' (retry)' : ''} |`);
  return [
    '## Problem types',
    '',
    `Every error is a problem document (RFC 9457) whose \`type\` is \`${TYPE_BASE}<name>\`:`,
    '',
    '| name | status | title | when |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
