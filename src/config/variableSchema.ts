import { isIPv6 } from 'node:net';

/**
 * The JSON Schema the configuration's variables are described in: the few forms they need, and
 * a checker for exactly those. TypeBox could build and check them too, but loading it costs a
 * command that only reads the database some 680 modules before it does anything (most of a CLI
 * command's start); test/config/variableSchema.test.ts holds this checker to TypeBox's answers.
 */
export type VariableSchema =
  | { type: 'integer'; minimum: number; maximum: number }
  | { type: 'boolean' }
  | { type: 'string'; minLength?: number; pattern?: string; format?: 'uri' }
  | { type: 'array'; items: { type: 'string' }; minItems: number }
  | { const: string }
  | { anyOf: VariableSchema[] };

export const integer = (minimum: number, maximum: number): VariableSchema => ({ type: 'integer', minimum, maximum });
export const boolean = (): VariableSchema => ({ type: 'boolean' });
export const string = (rules: { minLength?: number; pattern?: string; format?: 'uri' } = {}): VariableSchema => ({ type: 'string', ...rules });
export const stringList = (minItems: number): VariableSchema => ({ type: 'array', items: { type: 'string' }, minItems });
export const oneOf = (...schemas: VariableSchema[]): VariableSchema => ({ anyOf: schemas });
export const literals = (values: readonly string[]): VariableSchema => oneOf(...values.map((value) => ({ const: value })));

/** RFC 3986's shape of an absolute URI with an authority (the only kind a variable takes): JSON Schema's `uri` format. */
const ESCAPE = '%[0-9a-f]{2}';
const PCHAR = `(?:[-a-z0-9._~!$&'()*+,;=:@]|${ESCAPE})`;
const URI = new RegExp(
  `^[a-z][-a-z0-9+.]*://(?:(?:[-a-z0-9._~!$&'()*+,;=:]|${ESCAPE})*@)?(?:\\[([0-9a-f:.]+)\\]|(?:[-a-z0-9._~!$&'()*+,;=]|${ESCAPE})*)(?::\\d*)?(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`,
  'i',
);

function isUri(text: string): boolean {
  const match = URI.exec(text);
  return match !== null && (match[1] === undefined || isIPv6(match[1]));
}

const patterns = new Map<string, RegExp>();
const compiled = (pattern: string) => patterns.get(pattern) ?? patterns.set(pattern, new RegExp(pattern, 'u')).get(pattern)!;

/** Whether `value` is valid under `schema` (JSON Schema's meaning: lengths in code points, patterns unanchored unless they say so). */
export function checkVariable(schema: VariableSchema, value: unknown): boolean {
  if ('anyOf' in schema) return schema.anyOf.some((one) => checkVariable(one, value));
  if ('const' in schema) return value === schema.const;
  switch (schema.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && value >= schema.minimum && value <= schema.maximum;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return (
        typeof value === 'string' &&
        [...value].length >= (schema.minLength ?? 0) &&
        (schema.pattern === undefined || compiled(schema.pattern).test(value)) &&
        (schema.format !== 'uri' || isUri(value))
      );
    case 'array':
      return Array.isArray(value) && value.length >= schema.minItems && value.every((item) => typeof item === 'string');
  }
}
