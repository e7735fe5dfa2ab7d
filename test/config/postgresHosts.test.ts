import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canParsePostgresUrl, multiHostsOf, parsePostgresUrl, sessionAttrsOf } from '../../src/config/postgresHosts.ts';
import { describeDatabase } from '../../src/db/describeDatabase.ts';

describe("libpq's multi-host URL", () => {
  it('lists the hosts in order, each as a one-host URL with the rest of the URL kept (target_session_attrs aside)', () => {
    expect(multiHostsOf('postgres://app:pw@db1:5432,db2:5433/payments?sslmode=disable&target_session_attrs=read-write')).toEqual([
      { name: 'db1:5432', url: 'postgres://app:pw@db1:5432/payments?sslmode=disable' },
      { name: 'db2:5433', url: 'postgres://app:pw@db2:5433/payments?sslmode=disable' },
    ]);
    expect(multiHostsOf('postgresql://db1,[::1]:6543/p?target_session_attrs=read-write')).toEqual([
      { name: 'db1:5432', url: 'postgresql://db1:5432/p' },
      { name: '[::1]:6543', url: 'postgresql://[::1]:6543/p' },
    ]);
    expect(sessionAttrsOf('postgres://a,b/p?x=1&target_session_attrs=read-write')).toBe('read-write');
    expect(sessionAttrsOf('postgres://a,b/p')).toBeUndefined();
  });

  it('leaves a one-host URL alone: no list, the same parse, the same description as before', () => {
    for (const url of ['postgres://app:pw@db:5432/payments', 'postgres://db/payments?options=-c%20jit%3Doff', 'sqlite:./x.sqlite']) {
      expect(multiHostsOf(url)).toBeUndefined();
    }
    expect(parsePostgresUrl('postgres://app:pw@db:5432/payments').href).toBe(new URL('postgres://app:pw@db:5432/payments').href);
    expect(describeDatabase('postgres://app:pw@db:5432/payments')).toBe('PostgreSQL db:5432/payments');
  });

  it('describes several hosts with words between them (never card-shaped digits), and never the credentials', () => {
    expect(describeDatabase('postgres://app:hunter2@10.0.0.11:5432,10.0.0.12:5432/payments')).toBe(
      'PostgreSQL payments on 10.0.0.11:5432 or 10.0.0.12:5432, whichever takes writes',
    );
  });

  it('refuses a list with a port that is no port', () => {
    expect(multiHostsOf('postgres://a:5432,b:99999/p')).toBeUndefined();
    expect(canParsePostgresUrl('postgres://a:5432,b:99999/p')).toBe(false);
    expect(canParsePostgresUrl('postgres://a:5432,b:x/p')).toBe(false);
  });

  it('for any hosts and ports, each one-host URL parses to that host and port, with the same user, password, path and query', () => {
    const host = fc.oneof(fc.constantFrom('db', 'db-2.internal', '10.0.0.7', '[::1]', '[fe80::1]'), fc.domain());
    fc.assert(
      fc.property(fc.array(fc.tuple(host, fc.integer({ min: 1, max: 65535 })), { minLength: 2, maxLength: 5 }), (hosts) => {
        const url = `postgres://app:p%40ss@${hosts.map(([h, p]) => `${h}:${p}`).join(',')}/payments?sslmode=require`;
        const listed = multiHostsOf(url);
        expect(listed?.map((h) => h.name)).toEqual(hosts.map(([h, p]) => `${h}:${p}`));
        for (const [i, one] of (listed ?? []).entries()) {
          const parsed = new URL(one.url);
          expect(parsed.hostname).toBe(new URL(`postgres://${hosts[i]?.[0]}`).hostname);
          expect(Number(parsed.port || 5432)).toBe(hosts[i]?.[1]);
          expect([parsed.username, parsed.password, parsed.pathname, parsed.search]).toEqual(['app', 'p%40ss', '/payments', '?sslmode=require']);
        }
      }),
    );
  });
});
