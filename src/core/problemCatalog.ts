/**
 * Every problem type the API answers with, once: its status, its title, when it happens, and an
 * example detail. Problems are made only through this catalog (problem.ts), the OpenAPI
 * document's problem responses are generated from it (reference/problemResponses.ts), the client's
 * retry rules are generated from it (client/src/retryRules.ts), and docs/errors.md's table lists it;
 * test/core/problemCatalog.test.ts keeps all of them in step.
 */

/** Where the problem types are documented: `${TYPE_BASE}validation`, … */
export const TYPE_BASE = 'https://docs.payments.example/problems/';

export interface ProblemTypeEntry {
  status: number;
  title: string;
  /** When the API answers with it (documentation). */
  description: string;
  /** An example `detail` (documentation). */
  example: string;
  /** Example field errors (documentation). */
  exampleErrors?: Record<string, string[]>;
  /** Their codes, by the same keys (documentation). */
  exampleCodes?: Record<string, string[]>;
  /** Headers every problem of this type carries. */
  headers?: Record<string, string>;
  /** Worth retrying as it is, after Retry-After (which it carries): the client retries these. */
  retryable?: true;
}

export const PROBLEM_CATALOG = {
  'malformed-request': {
    status: 400,
    title: 'Malformed request',
    description: 'The body is not valid JSON, or the request is not valid HTTP (an HTTP/1.1 request without Host, say)',
    example: 'Body is not valid JSON',
  },
  'client-closed-request': {
    status: 400,
    title: 'Client closed request',
    description: 'The connection closed before the whole request arrived (nobody reads it; logged and counted as a 4xx)',
    example: 'The connection closed before the whole request arrived.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description: 'No valid API key (`Authorization: Bearer <key>`)',
    example: 'The API key is not valid.',
    headers: { 'www-authenticate': 'Bearer realm="api"' },
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'The API key lacks the scope this operation needs',
    example: 'This API key lacks the write scope.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description: 'Unknown, malformed or another tenant’s identifier, or an unknown path (including an unknown version prefix)',
    example: 'No payment pay_01JDQ7ZK3V6M8Y2W4T9N5R1B0C.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'A path that exists, asked with a method it does not answer (`Allow` lists those it does), or CONNECT: this is not a proxy',
    example: '/v3/payments answers GET, HEAD, POST, not PUT.',
  },
  'not-acceptable': {
    status: 406,
    title: 'Not acceptable',
    description: 'An export asked for in a format it is not sent in (Accept other than application/x-ndjson or text/csv)',
    example: 'An export is sent as application/x-ndjson or text/csv; ask for one of them in Accept.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    description: 'The request was not received in full within REQUEST_TIMEOUT_MS',
    example: 'The request was not received in full in time.',
  },
  conflict: {
    status: 409,
    title: 'The account’s state does not allow this',
    description: 'A change the account’s state forbids: changing or paying into a closed account, deleting an account with payments',
    example: 'Account acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C is closed and cannot take payments.',
  },
  'invalid-transition': {
    status: 409,
    title: 'The payment’s state does not allow this',
    description: 'A payment action its status forbids (e.g. refunding a failed payment)',
    example: 'Payment pay_01JDQ7ZK3V6M8Y2W4T9N5R1B0C is failed; only a payment that is succeeded or partially_refunded can be refunded.',
  },
  'idempotency-in-flight': {
    status: 409,
    title: 'A request with this Idempotency-Key is still in progress',
    description: 'The same Idempotency-Key is still being processed: retry after Retry-After to receive its response',
    example: 'Retry after it finishes to receive its response.',
    retryable: true,
  },
  'body-too-large': {
    status: 413,
    title: 'Payload too large',
    description: 'The body is larger than BODY_LIMIT',
    example: 'The request body is larger than 262144 bytes.',
  },
  'query-too-long': {
    status: 414,
    title: 'URI too long',
    description: 'The query string is longer than 8192 characters',
    example: 'The query string has 9000 characters; at most 8192 are accepted.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'The body is not `application/json`, or is labelled with a charset other than UTF-8',
    example: 'Unsupported Media Type: text/csv',
  },
  'expectation-failed': {
    status: 417,
    title: 'Expectation failed',
    description: 'An `Expect` header other than 100-continue',
    example: 'The only expectation supported is Expect: 100-continue.',
  },
  validation: {
    status: 422,
    title: 'The request has invalid values',
    description:
      'Invalid values, all of them at once (the schema’s, the card’s, the account’s): `errors` names each parameter or field (dot notation; at most 20, `detail` says how many more) with sentences a client can show, and `codes` gives a stable machine code for each sentence',
    example: 'Invalid values for email, card.number.',
    exampleErrors: {
      email: ['must be an email address, like ada@example.com'],
      'card.number': ['is not a valid card number (check digit); test cards are in the README'],
    },
    exampleCodes: { email: ['invalid_email'], 'card.number': ['invalid_card_number'] },
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description: 'Too many requests from this key or address: wait for Retry-After',
    example: 'This API key made more than 3000 requests in 60 s; retry in 12 s.',
    retryable: true,
  },
  'header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    description: 'The request line and headers are too large',
    example: 'The request line and headers are too large.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal server error',
    description: 'A failure on our side; the detail quotes the request id',
    example: 'Something failed on our side; quote request id 0b6f7c1e-2a4d-4e8b-9c3f-5d1a2b3c4d5e.',
  },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    description: 'The database does not answer or takes no writes (read-only, as during a failover), or the service is shutting down: retry after Retry-After',
    example: 'The database is not available; retry shortly.',
    retryable: true,
  },
  'database-timeout': {
    status: 503,
    title: 'Service unavailable',
    description: 'The database took longer than PG_STATEMENT_TIMEOUT_MS for this request: retry, or ask for less',
    example: 'The database took too long to answer this request; retry shortly, or ask for less (a narrower filter, a smaller per_page).',
    retryable: true,
  },
  'database-busy': {
    status: 503,
    title: 'Service unavailable',
    description:
      'No database connection became free in time, the database had no connection to spare, a write kept colliding with others (deadlock or serialization failure, after retries), or (SQLite) another writer held the file: retry after Retry-After',
    example: 'The database is busy with other requests; retry shortly.',
    retryable: true,
  },
} as const satisfies Record<string, ProblemTypeEntry>;

export type ProblemKind = keyof typeof PROBLEM_CATALOG;

export function problemTypeUri(kind: ProblemKind): string {
  return `${TYPE_BASE}${kind}`;
}
