import { resolve } from 'node:path';

/** The file of a `sqlite:` URL, absolute (or `:memory:`); undefined for any other URL. */
export function sqlitePathOf(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const path = databaseUrl.slice('sqlite:'.length);
  return path === ':memory:' ? path : resolve(path);
}
