import { Type } from 'typebox';

/** The body of every error (RFC 9457), as `renderProblem.ts` writes it. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI naming the problem type' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), {
        description: 'For 422: each invalid parameter or body field (dot notation) with its messages, Laravel style',
      }),
    ),
  },
  { $id: 'Problem' },
);

const BASE = 'https://docs.payments.example/problems/';

interface ProblemDoc {
  description: string;
  example: Record<string, unknown>;
  headers?: Record<string, { description: string; type: string }>;
}

const RETRY_AFTER = { description: 'Seconds to wait before retrying', type: 'integer' };

export const PROBLEMS: Record<number, ProblemDoc> = {
  400: {
    description: 'The body is not valid JSON (or the request is not valid HTTP: an HTTP/1.1 request without Host, say)',
    example: { type: `${BASE}malformed-request`, title: 'Malformed request', status: 400, detail: 'Body is not valid JSON' },
  },
  401: {
    description: 'No valid API key (`Authorization: Bearer <key>`)',
    example: { type: `${BASE}unauthorized`, title: 'Unauthorized', status: 401, detail: 'The API key is not valid.' },
    headers: { 'www-authenticate': { description: 'Bearer realm="api"', type: 'string' } },
  },
  403: {
    description: 'The API key lacks the scope this operation needs',
    example: { type: `${BASE}forbidden`, title: 'Forbidden', status: 403, detail: 'This API key lacks the write scope.' },
  },
  404: {
    description: 'Unknown, malformed or another tenant’s identifier, or an unknown path (including an unknown version prefix)',
    example: { type: `${BASE}not-found`, title: 'Not found', status: 404, detail: 'No payment pay_01JDQ7ZK3V6M8Y2W4T9N5R1B0C.' },
  },
  409: {
    description: 'A state conflict (e.g. refunding a failed payment), or the same Idempotency-Key is still being processed (then with Retry-After)',
    example: {
      type: `${BASE}invalid-transition`,
      title: 'The payment cannot be refunded',
      status: 409,
      detail: 'Payment pay_01JDQ7ZK3V6M8Y2W4T9N5R1B0C is failed; only a payment that is succeeded or partially_refunded can be refunded.',
    },
    headers: { 'retry-after': RETRY_AFTER },
  },
  415: {
    description: 'The body is not `application/json`, or is labelled with a charset other than UTF-8',
    example: { type: 'https://httpstatuses.io/415', title: 'Request rejected', status: 415, detail: 'Unsupported Media Type: text/csv' },
  },
  422: {
    description: 'Invalid values: `errors` names each parameter or field (at most 20; `detail` says how many more), text that is not valid Unicode included',
    example: {
      type: `${BASE}validation`,
      title: 'The request has invalid values',
      status: 422,
      detail: 'Invalid value for per_page.',
      errors: { per_page: ['must be an integer between 1 and 5000'] },
    },
  },
  429: {
    description: 'Too many requests: wait for Retry-After',
    example: { type: `${BASE}rate-limited`, title: 'Too many requests', status: 429, detail: 'Rate limit exceeded; retry later.' },
    headers: { 'retry-after': RETRY_AFTER },
  },
  503: {
    description: 'The database does not answer, or the service is shutting down: retry after Retry-After',
    example: { type: `${BASE}unavailable`, title: 'Service unavailable', status: 503, detail: 'The database does not answer.' },
    headers: { 'retry-after': RETRY_AFTER },
  },
};

export interface RouteShape {
  method: string;
  authenticated: boolean;
  hasPathParams: boolean;
  hasQuery: boolean;
  hasBody: boolean;
}

/** Which problems an operation can answer with, from what it takes. */
export function problemStatuses(route: RouteShape): number[] {
  const statuses = new Set<number>();
  if (route.authenticated) [401, 403, 429].forEach((s) => statuses.add(s));
  if (route.hasPathParams) statuses.add(404);
  if (route.hasQuery) statuses.add(422);
  if (route.method === 'POST' || route.method === 'PATCH') [400, 409, 415, 422].forEach((s) => statuses.add(s));
  if (route.method === 'DELETE') statuses.add(409);
  statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

/** A response entry in @fastify/swagger's `content` form, so it is documented as problem+json. */
export function problemResponse(status: number) {
  const doc = PROBLEMS[status];
  return {
    description: doc.description,
    ...(doc.headers ? { headers: doc.headers } : {}),
    content: { 'application/problem+json': { schema: { $ref: 'Problem#' }, example: doc.example } },
  };
}
