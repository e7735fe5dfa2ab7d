import type { TSchema } from 'typebox';

interface ObjectSchema {
  type?: string;
  description?: string;
  properties?: Record<string, TSchema & ObjectSchema>;
}

/**
 * A list querystring validates as one object with a nested `filter` object (that is how the
 * query parser hands it over), but on the wire it is flat: `filter[status]`,
 * `filter[amount][gte]`. The documented parameters are the wire names, each with the
 * pattern and description of the schema that validates it, so no filter or range operator
 * goes undocumented and none can drift from validation.
 */
export function flattenListQuery(querystring: ObjectSchema): { type: 'object'; properties: Record<string, TSchema> } {
  const properties: Record<string, TSchema> = {};
  for (const [name, schema] of Object.entries(querystring.properties ?? {})) {
    if (name !== 'filter') {
      properties[name] = schema;
      continue;
    }
    for (const [field, filter] of Object.entries(schema.properties ?? {})) {
      if (filter.type === 'object' && filter.properties) {
        for (const [op, value] of Object.entries(filter.properties)) {
          properties[`filter[${field}][${op}]`] = {
            ...value,
            description: `${field} ${OPERATOR_WORDS[op] ?? op} the value; ${value.description ?? ''}`.trim(),
          };
        }
      } else {
        properties[`filter[${field}]`] = filter;
      }
    }
  }
  return { type: 'object', properties };
}

const OPERATOR_WORDS: Record<string, string> = {
  gte: 'at least (≥)',
  gt: 'greater than (>)',
  lte: 'at most (≤)',
  lt: 'less than (<)',
};
