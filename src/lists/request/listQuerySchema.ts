import { Type, type TSchema } from 'typebox';
import { RANGE_OPERATORS, type FilterKind, type ListSpec } from './listSpec.ts';
import { pageParamsSchema } from './pageParams.ts';
import { representationQuerySchema, type RepresentationOffer } from '../../representations/representationQuery.ts';
import { METADATA_KEY_PATTERN, METADATA_KEY_RULE, METADATA_LIMITS } from '../../core/metadataRules.ts';

export const MAX_FILTER_VALUE_LENGTH = 200;
/** Values one any-of filter may list (`filter[status]=a,b,…`): each one is a bound SQL parameter. */
export const MAX_FILTER_VALUES = 50;
/** One metadata value searched for: as metadata values are written (≤ 500 characters), not empty, no comma (commas separate values). */
const METADATA_VALUE = `[^,]{1,${METADATA_LIMITS.valueLength}}`;
const TIME = '[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?';

function anyOfList(item: string): string {
  return `^(${item})(,(${item}))*$`;
}

/** The message a client gets for a bad value of one filter (also the filter's documentation). */
export function filterMessage(kind: FilterKind): string {
  switch (kind.kind) {
    case 'enum':
      return `must be one or more of ${kind.values.join(', ')}, separated by commas`;
    case 'code':
      return `must be one or more ${kind.hint}, separated by commas`;
    case 'exact':
    case 'exactInsensitive':
    case 'contains':
      return `must be a non-empty text of at most ${MAX_FILTER_VALUE_LENGTH} characters`;
    case 'integerRange':
      return 'must be a non-negative integer (minor units)';
    case 'timeRange':
      return 'must be an RFC 3339 date or date-time, such as 2026-01-31 or 2026-01-31T12:00:00Z';
    case 'metadata':
      return `must be one or more values of 1–${METADATA_LIMITS.valueLength} characters, separated by commas, each compared exactly`;
  }
}

/** The message for a metadata key searched by that no metadata can have: the rule keys are written by. */
export const METADATA_FILTER_KEY_MESSAGE = `is not a metadata key: a key is ${METADATA_KEY_RULE}`;

function valueSchema(kind: FilterKind): TSchema {
  const description = filterMessage(kind);
  switch (kind.kind) {
    case 'enum':
      return Type.String({ pattern: anyOfList(kind.values.join('|')), maxLength: 500, description });
    case 'code':
      return Type.String({ pattern: anyOfList(kind.pattern), maxLength: 2000, description });
    case 'exact':
    case 'exactInsensitive':
    case 'contains':
      return Type.String({ minLength: 1, maxLength: MAX_FILTER_VALUE_LENGTH, description });
    case 'integerRange':
      return Type.String({ pattern: '^[0-9]{1,15}$', description });
    case 'timeRange':
      return Type.String({ pattern: `^${TIME}$`, description });
    case 'metadata':
      return Type.String({ pattern: anyOfList(METADATA_VALUE), description });
  }
}

function filterSchema(kind: FilterKind): TSchema {
  if (kind.kind === 'metadata') {
    // filter[metadata][key]=value: one entry per key, named by the rule metadata keys are written by.
    return Type.Optional(
      Type.Record(Type.String({ pattern: METADATA_KEY_PATTERN }), valueSchema(kind), {
        additionalProperties: false,
        minProperties: 1,
        maxProperties: METADATA_LIMITS.keys,
        description: `filter[metadata][key]=a,b: records whose metadata has key with any of the values (exact strings); several keys must all match. A key is ${METADATA_KEY_RULE}; at most ${METADATA_LIMITS.keys} keys`,
      }),
    );
  }
  if (kind.kind !== 'integerRange' && kind.kind !== 'timeRange') return Type.Optional(valueSchema(kind));
  const ops = Object.fromEntries(RANGE_OPERATORS.map((op) => [op, Type.Optional(valueSchema(kind))]));
  return Type.Optional(Type.Object(ops, { additionalProperties: false, description: `range: ${RANGE_OPERATORS.join(', ')}` }));
}

export function sortPattern(spec: ListSpec): string {
  return anyOfList(`-?(${Object.keys(spec.sorts).join('|')})`);
}

export function sortMessage(spec: ListSpec): string {
  const fields = Object.keys(spec.sorts);
  return `must be a comma-separated list of ${fields.join(', ')}, each optionally prefixed by - for descending`;
}

/**
 * The querystring schema of a list endpoint. Unknown top-level parameters are allowed (they
 * are carried forward into the page links, as the contract says); unknown filters are not.
 */
export function listQuerySchema(spec: ListSpec, offer?: RepresentationOffer) {
  return Type.Object({ ...pageParamsSchema, ...filterAndSortSchema(spec), ...(offer ? representationQuerySchema(offer) : {}) }, { additionalProperties: true });
}

/** `sort` and `filter[…]` of a list: what its export accepts too. */
export function filterAndSortSchema(spec: ListSpec) {
  const filters = Object.fromEntries(Object.entries(spec.filters).map(([name, kind]) => [name, filterSchema(kind)]));
  return {
    sort: Type.Optional(Type.String({ pattern: sortPattern(spec), maxLength: 200, description: sortMessage(spec) })),
    filter: Type.Optional(Type.Object(filters, { additionalProperties: false })),
  };
}
