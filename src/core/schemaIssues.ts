import { addFieldError, issue, type FieldErrors, type FieldIssue } from './problem.ts';
import type { SchemaError } from './queryErrors.ts';
import type { IssueCode } from './issueCodes.ts';

/**
 * Ajv's errors turned into one sentence per field that a client developer can show a person,
 * with a stable code beside it. The sentence describes what the field must be, read from its
 * schema (Ajv runs with `verbose`, so each error carries the schema it broke), not which
 * keyword failed: `must be text of 1 to 200 characters`, not `must NOT have fewer than 1
 * characters`. A schema can say it better itself with `x-message` and `x-code` (an email, say).
 */

/** An Ajv error with the schema that failed (`verbose: true`). */
export interface VerboseSchemaError extends SchemaError {
  message?: string;
  /** Set on the errors of a key checked by `propertyNames` (the propertyNames error speaks for them). */
  propertyName?: string;
  parentSchema?: Record<string, unknown>;
}

/** The annotations a schema may carry to name its own issue (registered with Ajv in buildApp.ts). */
export const ISSUE_KEYWORDS = ['x-message', 'x-code'];

const CODE_BY_KEYWORD: Record<string, IssueCode> = {
  type: 'wrong_type',
  minLength: 'wrong_length',
  maxLength: 'wrong_length',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  anyOf: 'not_allowed',
  enum: 'not_allowed',
  const: 'not_allowed',
  pattern: 'invalid_format',
  maxProperties: 'too_many_keys',
  minProperties: 'empty',
  propertyNames: 'invalid_key',
};

function rangeText(low: unknown, high: unknown, unit = ''): string {
  if (typeof low === 'number' && typeof high === 'number') return ` from ${low} to ${high}${unit}`;
  if (typeof low === 'number') return ` of at least ${low}${unit}`;
  if (typeof high === 'number') return ` of at most ${high}${unit}`;
  return '';
}

/** What a value must be, as the end of a sentence that starts with the field's name. */
export function describeSchema(schema: Record<string, unknown>): string {
  if (typeof schema['x-message'] === 'string') return schema['x-message'];
  const branches = schema.anyOf as Array<Record<string, unknown>> | undefined;
  if (branches) {
    const literals = branches.filter((b) => 'const' in b).map((b) => String(b.const));
    const others = branches.filter((b) => !('const' in b) && b.type !== 'null');
    const nullable = branches.some((b) => b.type === 'null') ? ' or null' : '';
    if (others.length === 0) return `must be one of: ${literals.join(', ')}${nullable}`;
    return `${others.map(describeSchema).join(', or ')}${nullable}`;
  }
  switch (schema.type) {
    case 'integer':
      return `must be a whole number${rangeText(schema.minimum, schema.maximum)}`;
    case 'number':
      return `must be a number${rangeText(schema.minimum, schema.maximum)}`;
    case 'boolean':
      return 'must be true or false';
    case 'string': {
      const min = schema.minLength === 0 ? undefined : schema.minLength;
      return `must be text${rangeText(min, schema.maxLength, ' characters')}`;
    }
    case 'object':
      return 'must be a JSON object';
    case 'array':
      return 'must be a list';
    default:
      return 'is not valid';
  }
}

/** The issue of one failing schema, its own keyword deciding the code unless it names one. */
function issueOf(error: VerboseSchemaError): FieldIssue {
  const schema = error.parentSchema ?? {};
  const literalsOnly = error.keyword === 'anyOf' && (schema.anyOf as Array<Record<string, unknown>>).every((b) => 'const' in b || b.type === 'null');
  const byKeyword = error.keyword === 'anyOf' && !literalsOnly ? 'wrong_type' : CODE_BY_KEYWORD[error.keyword];
  // A schema's own code is one of the catalog's: test/core/issueCodes.test.ts checks every x-code.
  const code = typeof schema['x-code'] === 'string' ? (schema['x-code'] as IssueCode) : (byKeyword ?? 'invalid');
  switch (error.keyword) {
    case 'maxProperties':
      return issue(code, `must have at most ${error.params.limit} keys`);
    case 'minProperties':
      return issue(code, `must change at least one field: ${Object.keys((schema.properties as object) ?? {}).join(', ')}`);
    case 'propertyNames':
      return issue(code, 'has a key that is not 1–40 letters, digits or _ . : -');
    default:
      // A wrong type says what is expected instead; a union says it once for all its branches.
      return issue(code, describeSchema(schema));
  }
}

/** Ajv's pointer segments (`/card/number`, escaped) as names. */
function segmentsOf(instancePath: string): string[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Every problem Ajv found in a body (it runs with `allErrors`), one issue per field, named in
 * Laravel's dot notation (`card.number`); problems of the body as a whole under `whole`.
 */
export function schemaIssues(errors: readonly VerboseSchemaError[], whole: string): FieldErrors {
  const fieldErrors: FieldErrors = {};
  // The branches of a union each fail on their own; the union's own error speaks for them.
  const unions = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const error of errors) {
    if (error.keyword !== 'anyOf' && unions.has(error.instancePath) && error.keyword !== 'required' && error.keyword !== 'additionalProperties') continue;
    if (error.propertyName !== undefined) continue;
    const segments = segmentsOf(error.instancePath);
    let found: FieldIssue;
    if (error.keyword === 'required') {
      segments.push(String(error.params.missingProperty));
      found = issue('required', 'is required');
    } else if (error.keyword === 'additionalProperties') {
      segments.push(String(error.params.additionalProperty));
      const known = Object.keys((error.parentSchema?.properties as object) ?? {});
      found = issue('unknown_field', `is not a field here; the fields are ${known.join(', ')}`);
    } else {
      found = issueOf(error);
    }
    addFieldError(fieldErrors, segments.length ? segments.join('.') : whole, found);
  }
  return fieldErrors;
}

/** The body's schema problems a route took in (`attachValidation`) to list with its own checks. */
export function bodySchemaErrors(error: { validation?: unknown } | undefined): FieldErrors {
  return error?.validation ? schemaIssues(error.validation as VerboseSchemaError[], 'body') : {};
}
