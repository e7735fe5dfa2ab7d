/** Metadata is JSON text on SQLite and parsed jsonb on PostgreSQL; both read as an object. */
export function readJsonObject(value: string | Record<string, string>): Record<string, string> {
  return typeof value === 'string' ? JSON.parse(value) : value;
}
