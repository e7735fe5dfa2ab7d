import { multiHostsOf, parsePostgresUrl } from '../config/postgresHosts.ts';
import { sqlitePathOf } from '../config/sqlitePath.ts';

/**
 * The database as logs and error lines name it: scheme, host, port and name for PostgreSQL
 * (never the user's password, nor the user: the URL's credentials stay out of every output),
 * the file for SQLite. Several hosts are listed in the URL's order:
 * `PostgreSQL payments on a:5432 or b:5432, whichever takes writes`.
 */
export function describeDatabase(databaseUrl: string): string {
  const path = sqlitePathOf(databaseUrl);
  if (path) return `SQLite ${path}`;
  try {
    const url = parsePostgresUrl(databaseUrl);
    const hosts = multiHostsOf(databaseUrl);
    // Words between the hosts: log lines are scrubbed of anything card-shaped (12 digits or more
    // with a separator or two between), which two addresses and ports side by side would be.
    if (hosts)
      return `PostgreSQL ${decodeURIComponent(url.pathname.slice(1)) || '(default database)'} on ${hosts.map((h) => h.name).join(' or ')}, whichever takes writes`;
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
