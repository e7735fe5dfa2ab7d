import { multiHostsOf, parsePostgresUrl } from '../config/postgresHosts.ts';
import { sqlitePathOf } from '../config/sqlitePath.ts';

/**
 * The database as logs and error lines name it: scheme, host, port and name for PostgreSQL
 * (never the user's password, nor the user: the URL's credentials stay out of every output),
 * the file for SQLite. Several hosts are listed in the URL's order: `PostgreSQL a:5432,b:5432/db`.
 */
export function describeDatabase(databaseUrl: string): string {
  const path = sqlitePathOf(databaseUrl);
  if (path) return `SQLite ${path}`;
  try {
    const url = parsePostgresUrl(databaseUrl);
    const hosts = multiHostsOf(databaseUrl);
    if (hosts) return `PostgreSQL ${hosts.map((h) => h.name).join(',')}${url.pathname === '/' ? '' : url.pathname}`;
    return `PostgreSQL ${url.hostname || 'localhost'}:${url.port || 5432}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL unreadable)';
  }
}

/** The user and database name a PostgreSQL URL asks for (with libpq's defaults), for hints. */
export function postgresNames(databaseUrl: string): { user: string; database: string } {
  try {
    const url = parsePostgresUrl(databaseUrl);
    const user = decodeURIComponent(url.username) || process.env.PGUSER || process.env.USER || 'postgres';
    return { user, database: decodeURIComponent(url.pathname.slice(1)) || user };
  } catch {
    return { user: '?', database: '?' };
  }
}
