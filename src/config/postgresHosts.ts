/**
 * libpq's multi-host URI (`postgresql://user@host1:5432,host2:5433/db`): the hosts a
 * DATABASE_URL names, in order, and the one-host URL node-postgres can read for each (it reads a
 * single host only). A URL naming one host is not touched here.
 */

export interface PostgresHost {
  /** `host:port` as lines print it (an IPv6 address in brackets). */
  name: string;
  /** The DATABASE_URL with this host alone in it. */
  url: string;
}

/** Scheme, user information (with its `@`), the host list, and the rest (path, query, fragment). */
const PARTS = /^(postgres(?:ql)?:\/\/)((?:[^/?#]*@)?)([^/?#@]*)(.*)$/s;
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::(\d{1,5}))?$/;

/** The hosts of a URL naming more than one (undefined for one host, or for text that is no such URL). */
export function multiHostsOf(databaseUrl: string): PostgresHost[] | undefined {
  const parts = PARTS.exec(databaseUrl);
  if (!parts) return undefined;
  const [, scheme, userInfo, hostList, rest] = parts as unknown as [string, string, string, string, string];
  const entries = hostList.split(',');
  if (entries.length < 2) return undefined;
  const hosts: PostgresHost[] = [];
  for (const entry of entries) {
    const hostPort = HOST_PORT.exec(entry);
    if (!hostPort) return undefined;
    const host = hostPort[1] || 'localhost';
    const port = Number(hostPort[2] ?? 5432);
    if (port < 1 || port > 65535) return undefined;
    hosts.push({ name: `${host}:${port}`, url: `${scheme}${userInfo}${host}:${port}${withoutSessionAttrs(rest)}` });
  }
  return hosts;
}

/** libpq's `target_session_attrs`: the service applies read-write itself; node-postgres needs not see it. */
function withoutSessionAttrs(rest: string): string {
  return rest.replace(/([?&])target_session_attrs=[^&#]*&?/, '$1').replace(/[?&](?=#|$)/, '');
}

/** `target_session_attrs` as the URL gives it, if it does. */
export function sessionAttrsOf(databaseUrl: string): string | undefined {
  const match = /[?&]target_session_attrs=([^&#]*)/.exec(databaseUrl);
  return match ? decodeURIComponent(match[1] as string) : undefined;
}

/** True for a PostgreSQL URL that node-postgres can read: one host, or each host of a list alone. */
export function canParsePostgresUrl(databaseUrl: string): boolean {
  if (URL.canParse(databaseUrl)) return true;
  const hosts = multiHostsOf(databaseUrl);
  return hosts?.every((h) => URL.canParse(h.url)) === true;
}

/** The URL as the WHATWG parser reads it: the first host's for a list of hosts. */
export function parsePostgresUrl(databaseUrl: string): URL {
  const hosts = multiHostsOf(databaseUrl);
  return new URL(hosts ? (hosts[0] as PostgresHost).url : databaseUrl);
}
