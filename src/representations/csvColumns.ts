import type { TSchema } from 'typebox';

/** What a column's schema says its values are: how `csvCell` will write them. */
export type CsvCellKind = 'string' | 'integer' | 'boolean' | 'object' | 'other';

/** One CSV column: its header, where its value is in the resource, and what the schema says it holds. */
export interface CsvColumn {
  name: string;
  path: string[];
  kind: CsvCellKind;
}

type Properties = Record<string, TSchema>;

/** The schema's JSON type, `null` left out of a nullable one (`type: ['string', 'null']`). */
function kindOf(schema: TSchema): CsvCellKind {
  const declared = (schema as { type?: string | string[] }).type;
  const type = Array.isArray(declared) ? declared.find((t) => t !== 'null') : declared;
  return type === 'string' || type === 'integer' || type === 'boolean' || type === 'object' ? type : 'other';
}

/**
 * The flat CSV columns of a resource, read off its schema so they never drift from the JSON:
 * each property in schema order, a nested object's properties (not a free-form map such as
 * `metadata`) as `parent.child`.
 */
export function csvColumnsOf(schema: TSchema, prefix: string[] = []): CsvColumn[] {
  const properties = (schema as { properties?: Properties }).properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) => {
    const path = [...prefix, name];
    const nested = (property as { properties?: Properties }).properties;
    if (nested && Object.keys(nested).length > 0) return csvColumnsOf(property, path);
    return [{ name: path.join('.'), path, kind: kindOf(property) }];
  });
}
