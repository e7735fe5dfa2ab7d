import { PROBLEM_CATALOG, problemTypeUri, type ProblemKind, type ProblemTypeEntry } from './problemCatalog.ts';
import type { ProblemBody } from './problemSchema.ts';
import type { IssueCode } from './issueCodes.ts';
import { scrubSecrets } from './scrubSecrets.ts';

/**
 * The one error type of the service (RFC 9457). Thrown anywhere at the edge, rendered to
 * `application/problem+json` in one place (renderProblem.ts).
 */
/**
 * One thing wrong with one field: a sentence a client developer can show as it is, and a stable
 * machine code (snake_case) to branch on. Sentences may be reworded; codes only ever get added.
 */
export interface FieldIssue {
  code: IssueCode;
  message: string;
}

/** The problems of a request by field name (dot notation for body fields, brackets for query). */
export type FieldErrors = Record<string, FieldIssue[]>;

export function issue(code: IssueCode, message: string): FieldIssue {
  return { code, message };
}

/**
 * Adds an issue under a field name the client chose. Safe for any name: `errors[name] ??= []`
 * would find `constructor` or `toString` on Object.prototype, and assigning `__proto__` would
 * replace the prototype instead of adding a field.
 */
export function addFieldError(errors: FieldErrors, field: string, found: FieldIssue): void {
  const list = Object.hasOwn(errors, field) ? errors[field] : undefined;
  if (!list) Object.defineProperty(errors, field, { value: [found], enumerable: true, writable: true, configurable: true });
  else if (!list.some((known) => known.message === found.message)) list.push(found);
}

/** Every issue of `more` added to `errors` (the problems of one request, found by several checks). */
export function mergeFieldErrors(errors: FieldErrors, more: FieldErrors): FieldErrors {
  for (const [field, issues] of Object.entries(more)) for (const found of issues) addFieldError(errors, field, found);
  return errors;
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
      ...(this.errors ? scrubbedFieldErrors(this.errors) : {}),
    };
  }
}

/** `errors` in Laravel's shape (field → sentences) and `codes` beside it (field → codes, same order). */
function scrubbedFieldErrors(errors: FieldErrors): Pick<ProblemBody, 'errors' | 'codes'> {
  const scrubbed: FieldErrors = {};
  for (const [field, issues] of Object.entries(errors)) for (const found of issues) addFieldError(scrubbed, scrubSecrets(field), found);
  const messages: Record<string, string[]> = {};
  const codes: Record<string, string[]> = {};
  for (const [field, issues] of Object.entries(scrubbed)) {
    Object.defineProperty(messages, field, { value: issues.map((i) => i.message), enumerable: true });
    Object.defineProperty(codes, field, { value: issues.map((i) => i.code), enumerable: true });
  }
  return { errors: messages, codes };
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
  for (const field of fields.slice(0, MAX_NAMED_FIELDS)) for (const found of errors[field]) addFieldError(named, shortName(field), found);
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
