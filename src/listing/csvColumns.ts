import type { TSchema } from 'typebox';

/** One CSV column: its header, and where its value is in the resource. */
export interface CsvColumn {
  name: string;
  path: string[];
}

/**
 * The flat CSV columns of a resource, read off its schema so they never drift from the JSON:
 * each property in schema order, a nested object's properties (not a free-form map such as
 * `metadata`) as `parent.child`.
 */
export function csvColumnsOf(schema: TSchema, prefix: string[] = []): CsvColumn[] {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) => {
    const path = [...prefix, name];
    const nested = (property as { properties?: Record<string, TSchema> }).properties;
    return nested && Object.keys(nested).length > 0 ? csvColumnsOf(property, path) : [{ name: path.join('.'), path }];
  });
}
