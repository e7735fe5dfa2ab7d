import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import cases from '../../fixtures/pagination-envelope.json' with { type: 'json' };
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { seed } from '../../support/seedHelpers.ts';
import { canonicalizeUrls } from '../../support/urlEquality.ts';

interface FixtureCase {
  note: string;
  request: string;
  total: number;
  expected: { data_count: number; links: unknown; meta: unknown };
}

/** Unfiltered cases whose totals we can reproduce exactly with seeded data. */
const sample = (cases as FixtureCase[]).filter(
  (c) => !c.request.includes('filter') && !c.request.includes('sort') && c.total <= 12345 && !c.request.startsWith('https://'),
);

describe('list responses over HTTP match Laravel’s envelope for the same request and total', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /**
   * A tenant holding exactly `accounts` accounts and `payments` payments, seeded once for every case
   * that asks for the same numbers: the cases only read, so each still meets a tenant with its total
   * (the two 12,345-payment cases and the ten 200-payment cases seeded one tenant each, not 2 and 10).
   */
  const tenants = new Map<string, Promise<{ id: string; key: string }>>();
  function seeded(accounts: number, payments: number) {
    const name = `fixture-${accounts}-${payments}`;
    if (!tenants.has(name)) {
      tenants.set(
        name,
        t.tenant(name).then(async (tenant) => {
          await seed(t.database.db, name, accounts, payments);
          return tenant;
        }),
      );
    }
    return tenants.get(name)!;
  }

  it.each(sample.map((c, i) => [c.note, i, c] as const))('%s (case %i)', async (_note, _i, c) => {
    const url = new URL(c.request);
    const isAccounts = url.pathname === '/v3/accounts';
    const perAccount = url.pathname.includes('/accounts/acc_');
    const tenant = await seeded(isAccounts ? c.total : 1, isAccounts ? 0 : c.total);
    const { id: tenantId } = tenant;
    let path = url.pathname + url.search;
    let expected = { links: c.expected.links, meta: c.expected.meta };
    if (perAccount) {
      const account = await t.database.db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
      const fixtureId = url.pathname.split('/')[3];
      path = path.replace(fixtureId, account.id);
      expected = JSON.parse(JSON.stringify(expected).replaceAll(fixtureId, account.id));
    }
    const response = await t.app.inject({
      method: 'GET',
      url: path,
      headers: { host: url.host, authorization: `Bearer ${tenant.key}` },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data).toHaveLength(c.expected.data_count);
    expect(canonicalizeUrls(body.links)).toEqual(canonicalizeUrls(expected.links));
    expect(canonicalizeUrls(body.meta)).toEqual(canonicalizeUrls(expected.meta));
  });

  it('builds links on PUBLIC_URL when it is configured', async () => {
    const c = (cases as FixtureCase[]).find((x) => x.request.startsWith('https://api.example.com'))!;
    const other = await createTestApp({ publicUrl: 'https://api.example.com' });
    try {
      const tenant = await other.tenant('public');
      await seed(other.database.db, 'public', 1, c.total);
      const body = (await other.get('/v3/payments?page=4', tenant.key)).body;
      expect(canonicalizeUrls(body.links)).toEqual(canonicalizeUrls(c.expected.links));
      expect(canonicalizeUrls(body.meta)).toEqual(canonicalizeUrls(c.expected.meta));
    } finally {
      await other.close();
    }
  });

  it('honours X-Forwarded-Proto and -Host only when proxy trust is configured', async () => {
    const headers = (key: string) => ({
      authorization: `Bearer ${key}`,
      host: 'internal:3000',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
    });
    const tenant = await t.tenant('proxy');
    const untrusted = await t.app.inject({ url: '/v3/accounts', headers: headers(tenant.key) });
    expect(untrusted.json().meta.path).toBe('http://internal:3000/v3/accounts');
    const trusting = await createTestApp({ trustProxy: true });
    try {
      const other = await trusting.tenant('proxy');
      const trusted = await trusting.app.inject({ url: '/v3/accounts', headers: headers(other.key) });
      expect(trusted.json().meta.path).toBe('https://api.example.com/v3/accounts');
    } finally {
      await trusting.close();
    }
  });
});
