import { PROBLEM_CATALOG, problemTypeUri, type ProblemKind, type ProblemTypeEntry } from './problemCatalog.ts';
import type { ProblemBody } from './problemSchema.ts';
import { scrubSecrets } from './scrubSecrets.ts';

/**
 * The one error type of the service (RFC 9457). Thrown anywhere at the edge, rendered to
 * `application/problem+json` in one place (renderProblem.ts).
 */
export type FieldErrors = Record<string, string[]>;

/**
 * Adds a message under a field name the client chose. Safe for any name: `errors[name] ??= []`
 * would find `constructor` or `toString` on Object.prototype, and assigning `__proto__` would
 * replace the prototype instead of adding a field.
 */
export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  const list = Object.hasOwn(errors, field) ? errors[field] : undefined;
  if (!list) Object.defineProperty(errors, field, { value: [message], enumerable: true, writable: true, configurable: true });
  else if (!list.includes(message)) list.push(message);
}

/** What one occurrence says beyond its type: the detail, the fields at fault, headers to send. */
export interface ProblemInit {
  detail?: string;
  errors?: FieldErrors;
  headers?: Record<string, string>;
}

/** A problem of one of the catalog's types (problemCatalog.ts), which gives its status and title. */
export class Problem extends Error {
  readonly kind: ProblemKind;
  readonly status: number;
  readonly title: string;
  readonly detail: string | undefined;
  readonly type: string;
  readonly errors: FieldErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(kind: ProblemKind, init: ProblemInit = {}) {
    const entry: ProblemTypeEntry = PROBLEM_CATALOG[kind];
    super(init.detail ?? entry.title);
    this.kind = kind;
    this.status = entry.status;
    this.title = entry.title;
    this.detail = init.detail;
    this.type = problemTypeUri(kind);
    this.errors = init.errors;
    this.headers = { ...entry.headers, ...init.headers };
  }

  /**
   * The document as sent. What it says about the client's input (a path segment in `detail`, a
   * field name in `errors`) is scrubbed like a log line: a card number or key is never echoed.
   */
  toJSON(): ProblemBody {
    return {
      type: this.type,
      title: this.title,
      status: this.status,
      ...(this.detail !== undefined ? { detail: scrubSecrets(this.detail) } : {}),
      ...(this.errors ? { errors: scrubbedFieldErrors(this.errors) } : {}),
    };
  }
}

function scrubbedFieldErrors(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [field, messages] of Object.entries(errors)) for (const message of messages) addFieldError(out, scrubSecrets(field), message);
  return out;
}

/**
 * A 422 names at most this many fields, each in at most this many characters, and says how many
 * more there were: its size does not grow with the body (a 204 KB body of unknown fields got an
 * 876 KB answer naming every one).
 */
export const MAX_NAMED_FIELDS = 20;
const MAX_NAME_LENGTH = 100;

function shortName(field: string): string {
  return field.length <= MAX_NAME_LENGTH ? field : `${field.slice(0, MAX_NAME_LENGTH)}…`;
}

export function validationProblem(errors: FieldErrors, detail?: string): Problem {
  const fields = Object.keys(errors);
  const named: FieldErrors = {};
  for (const field of fields.slice(0, MAX_NAMED_FIELDS)) for (const message of errors[field]) addFieldError(named, shortName(field), message);
  const more = fields.length - MAX_NAMED_FIELDS;
  const unlisted = more > 0 ? `, and ${more} more ${more === 1 ? 'field' : 'fields'} not listed` : '';
  return new Problem('validation', {
    detail: detail ?? `Invalid ${fields.length === 1 ? 'value' : 'values'} for ${Object.keys(named).join(', ')}${unlisted}.`,
    errors: named,
  });
}

export function notFound(detail = 'No such resource.'): Problem {
  return new Problem('not-found', { detail });
}

export function unauthorized(detail: string): Problem {
  return new Problem('unauthorized', { detail });
}

export function forbidden(detail: string): Problem {
  return new Problem('forbidden', { detail });
}

export function malformedRequest(detail: string): Problem {
  return new Problem('malformed-request', { detail });
}

export function serviceUnavailable(detail: string): Problem {
  return new Problem('unavailable', {
    detail,
    headers: { 'retry-after': '5' },
  });
}

/** A statement cut off by the statement timeout: the request was fine, a retry may succeed. */
export function databaseTimeout(): Problem {
  return new Problem('database-timeout', {
    detail: 'The database took too long to answer this request; retry shortly, or ask for less (a narrower filter, a smaller per_page).',
    headers: { 'retry-after': '2' },
  });
}

/** No pooled connection in time, or (SQLite) the file locked by another writer past the busy timeout. */
export function databaseBusy(): Problem {
  return new Problem('database-busy', {
    detail: 'The database is busy with other requests; retry shortly.',
    headers: { 'retry-after': '1' },
  });
}
