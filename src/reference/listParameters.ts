import type { TSchema } from 'typebox';

interface ObjectSchema {
  type?: string;
  description?: string;
  pattern?: string;
  properties?: Record<string, TSchema & ObjectSchema>;
  patternProperties?: Record<string, TSchema & ObjectSchema>;
  anyOf?: ObjectSchema[];
}

/** The names a `^(a|b)(,(a|b))*$` or `^(a|b)$` pattern admits. */
function namesOf(pattern: string | undefined): string[] {
  return /^\^\(([^()]*)\)/.exec(pattern ?? '')?.[1].split('|') ?? [];
}

/**
 * `fields[type]=a,b` as OpenAPI says it: an array of the type's field names, comma-separated
 * (style form, not exploded); `expand[]=account` as an exploded array of the names it offers.
 */
function representationParameters(name: string, schema: ObjectSchema): Record<string, TSchema> {
  if (name === 'expand') {
    const names = namesOf(schema.anyOf?.[0]?.pattern);
    return {
      'expand[]': {
        type: 'array',
        items: { type: 'string', enum: names },
        description: `Expands each record's ${names.map((n) => `${n}_id`).join(', ')} into the whole resource, placed after it as \`${names.join('`, `')}\` (as its own GET renders it).`,
      } as unknown as TSchema,
    };
  }
  const out: Record<string, TSchema> = {};
  for (const [type, fields] of Object.entries(schema.properties ?? {})) {
    out[`fields[${type}]`] = {
      type: 'array',
      items: { type: 'string', enum: namesOf(fields.pattern) },
      description: fields.description,
    } as unknown as TSchema;
  }
  return out;
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
    if (name === 'fields' || name === 'expand') {
      Object.assign(properties, representationParameters(name, schema));
      continue;
    }
    if (name !== 'filter') {
      properties[name] = schema;
      continue;
    }
    for (const [field, filter] of Object.entries(schema.properties ?? {})) {
      if (filter.type === 'object' && filter.patternProperties) {
        // filter[metadata][key]=value: one object parameter, its keys the metadata keys (deepObject).
        const [[pattern, value]] = Object.entries(filter.patternProperties);
        properties[`filter[${field}]`] = {
          type: 'object',
          propertyNames: { pattern },
          additionalProperties: value,
          maxProperties: (filter as { maxProperties?: number }).maxProperties,
          description: filter.description,
          // Without it Swagger UI's "Try it out" fills in a made-up object as large as the schema
          // allows (values of 500 characters), and the request line passes Node's header limit: 431.
          example: {},
        } as unknown as TSchema;
      } else if (filter.type === 'object' && filter.properties) {
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

type Operation = { parameters?: Array<{ name: string; in: string; style?: string; explode?: boolean }> };

/**
 * How `fields[type]`, `expand[]` and `filter[metadata]` are written (the plugin takes a
 * parameter's style only from the whole querystring): `fields[payments]=id,amount` (form, not
 * exploded), `expand[]=account` once per name (form, exploded), `filter[metadata][crm]=42`
 * (deepObject). Applied to the finished document.
 */
export function styleRepresentationParameters<T extends { paths?: Record<string, unknown> }>(document: T): T {
  for (const path of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>))
    for (const operation of Object.values(path))
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query') continue;
        if (/^fields\[[a-z_]+\]$/.test(parameter.name)) Object.assign(parameter, { style: 'form', explode: false });
        if (parameter.name === 'expand[]') Object.assign(parameter, { style: 'form', explode: true });
        // filter[metadata][crm]=42: an object parameter whose keys are the metadata keys.
        if (parameter.name === 'filter[metadata]') Object.assign(parameter, { style: 'deepObject', explode: true });
      }
  return document;
}
