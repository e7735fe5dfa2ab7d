import { addFieldError, issue, type FieldErrors, type FieldIssue } from '../../core/problem.ts';
import { bracketName, type SchemaError } from '../../core/queryErrors.ts';
import { RANGE_OPERATORS, type ListSpec } from './listSpec.ts';
import { filterMessage, METADATA_FILTER_KEY_MESSAGE, sortMessage } from './listQuerySchema.ts';
import { METADATA_KEY_PATTERN, METADATA_LIMITS } from '../../core/metadataRules.ts';

const METADATA_KEY = new RegExp(METADATA_KEY_PATTERN);

/** `filter[metadata][key]`: the key by the rule keys are written by, then its values. */
function metadataIssue(filter: string, key: string | undefined, keyword: string): FieldIssue {
  if (keyword === 'maxProperties') return issue('too_many_keys', `names more than ${METADATA_LIMITS.keys} metadata keys`);
  if (key === undefined) return issue('malformed_filter', `must be given with a metadata key: filter[${filter}][key]=value`);
  if (!METADATA_KEY.test(key)) return issue('invalid_key', METADATA_FILTER_KEY_MESSAGE);
  return issue('invalid_filter_value', filterMessage({ kind: 'metadata' }));
}

function issueFor(spec: ListSpec, segments: string[], keyword: string): FieldIssue {
  const [top, filter, op] = segments;
  if (top === 'sort') return issue('unknown_sort', sortMessage(spec));
  if (top !== 'filter') return issue('invalid', 'is not valid');
  const allowed = Object.keys(spec.filters);
  if (filter === undefined) return issue('malformed_filter', `must be given as filter[field]=value; filters of ${spec.name}: ${allowed.join(', ')}`);
  const kind = spec.filters[filter];
  if (!kind) return issue('unknown_filter', `is not a filter of ${spec.name}; allowed: ${allowed.join(', ')}`);
  if (kind.kind === 'metadata') return metadataIssue(filter, op, keyword);
  const ranged = kind.kind === 'integerRange' || kind.kind === 'timeRange';
  if (ranged && op === undefined)
    return issue('malformed_filter', `must be given with a range operator: filter[${filter}][${RANGE_OPERATORS.join('|')}]=value`);
  if (ranged && !(RANGE_OPERATORS as readonly string[]).includes(op))
    return issue('unknown_operator', `is not a range operator; use ${RANGE_OPERATORS.join(', ')}`);
  return issue('invalid_filter_value', filterMessage(kind));
}

/** Ajv errors of a list querystring → Laravel-shaped field errors naming each bad parameter. */
export function listQueryFieldErrors(spec: ListSpec, errors: readonly SchemaError[]): FieldErrors {
  const fieldErrors: FieldErrors = {};
  for (const error of errors) {
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
    // `fields` and `expand` are worded by reading them (representationQuery.ts), which names what
    // exists; `page` and `per_page` by reading them (pageParams.ts), which says the one thing wrong.
    if (segments.length === 0 || ['fields', 'expand', 'page', 'per_page'].includes(segments[0])) continue;
    const name = bracketName(segments);
    addFieldError(fieldErrors, name, issueFor(spec, segments, error.keyword));
  }
  return fieldErrors;
}
