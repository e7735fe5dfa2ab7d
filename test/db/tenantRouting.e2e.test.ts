import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/tenantQueries.ts';
import { purgeExpiredEvents } from '../../src/events/purgeEvents.ts';
import { purgeExpiredKeys } from '../../src/idempotency/runIdempotent.ts';
import { card } from '../support/cards.ts';
import { forRequest, recordSentStatements, type SentStatement } from '../support/sentStatements.ts';
import { seedTenant, type SeedOptions } from '../../src/seed/seedTenant.ts';
import { tenantFilterGaps, TENANT_TABLES } from '../support/tenantFilters.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';
import { eventually, startReceiver } from '../support/webhookReceiver.ts';

/** A sender that looks often, so deliveries happen while the run goes on. */
const SENDER = { sender: true, allowPrivateTargets: true, pollMs: 20, retryBaseMs: 40, attemptTimeoutMs: 300, giveUpAfterMs: 60_000 };
const DAY = 86_400_000;
/** Deep pages found the deep ways (buckets, deferred join) even on a small list. */
const DEEP_WAY = { plainOffsetUpTo: 0, skipHop: 3 };

describe.runIf(TEST_DIALECT === 'postgres')('every statement a tenant’s request sends (what lets Citus route it to one shard)', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let deep: FastifyInstance;
  let sender: FastifyInstance;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const tenants: Array<{ id: string; key: string; readOnly: string }> = [];
  let recorder: ReturnType<typeof recordSentStatements>;
  /** Request label → the tenant it was sent as. */
  const tenantOf = new Map<string, string>();
  let label = 0;

  async function send(
    tenant: (typeof tenants)[number],
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    options: { payload?: object; headers?: Record<string, string>; key?: string; on?: FastifyInstance } = {},
  ) {
    const name = `${method} ${url} #${label++}`;
    tenantOf.set(name, tenant.id);
    const response = await forRequest(name, () =>
      (options.on ?? app).inject({
        method,
        url,
        headers: { authorization: `Bearer ${options.key ?? tenant.key}`, ...options.headers },
        ...(options.payload ? { payload: options.payload } : {}),
      }),
    );
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.headers['content-type']?.startsWith('application/json') ? response.json() : response.body,
    };
  }

  /** Every route, as a merchant uses them: lists with every filter and sort, deep pages, exports, writes, idempotency, events, webhooks, refused keys. */
  async function merchantDay(tenant: (typeof tenants)[number]) {
    const ok = async (...args: Parameters<typeof send>) => {
      const response = await send(...args);
      expect(response.status, `${args[1]} ${args[2]}: ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(400);
      return response;
    };
    const hook = (await ok(tenant, 'POST', '/v3/webhook_endpoints', { payload: { url: receiver.url, enabled_events: ['*'] } })).body.data;
    receiver.secrets.push(hook.secret);
    const account = (
      await ok(tenant, 'POST', '/v3/accounts', { payload: { name: 'Ada, Ltd', email: 'ada@example.com', currency: 'EUR', metadata: { tier: 'gold' } } })
    ).body.data;
    await ok(tenant, 'PATCH', `/v3/accounts/${account.id}`, { payload: { name: 'Ada Lovelace', metadata: { tier: 'platinum' } } });
    const body = { account_id: account.id, amount: 1500, currency: 'EUR', card: card(), capture: false, reference: 'order-7', metadata: { order: '7' } };
    const payment = (await ok(tenant, 'POST', '/v3/payments', { payload: body, headers: { 'idempotency-key': 'order-7' } })).body.data;
    await ok(tenant, 'POST', '/v3/payments', { payload: body, headers: { 'idempotency-key': 'order-7' } });
    expect((await send(tenant, 'POST', '/v3/payments', { payload: { ...body, amount: 1 }, headers: { 'idempotency-key': 'order-7' } })).status).toBe(422);
    await ok(tenant, 'POST', `/v3/payments/${payment.id}/capture`, { payload: {} });
    await ok(tenant, 'POST', `/v3/payments/${payment.id}/refunds`, { payload: { amount: 500, reason: 'requested_by_customer' } });
    const other = (await ok(tenant, 'POST', '/v3/payments', { payload: { ...body, reference: 'order-8', capture: false } })).body.data;
    await ok(tenant, 'POST', `/v3/payments/${other.id}/cancel`, { payload: {} });
    const closing = (await ok(tenant, 'POST', '/v3/accounts', { payload: { name: 'Gone', email: 'gone@example.com', currency: 'USD' } })).body.data;
    await ok(tenant, 'DELETE', `/v3/accounts/${closing.id}`);

    const someAccount = (await ok(tenant, 'GET', '/v3/accounts?per_page=1&sort=-created_at&filter[status]=active')).body.data[0].id;
    const lists = [
      '/v3/payments',
      '/v3/payments?sort=-amount&per_page=7&page=3',
      '/v3/payments?filter[status]=succeeded,failed&sort=amount',
      '/v3/payments?filter[currency]=EUR&filter[card_brand]=visa',
      `/v3/payments?filter[account_id]=${someAccount}`,
      '/v3/payments?filter[card_last4]=4242',
      '/v3/payments?filter[reference]=order-7',
      '/v3/payments?filter[amount][gte]=100&filter[amount][lt]=5000',
      '/v3/payments?filter[created_at][gte]=2026-01-01&filter[created_at][lt]=2026-12-01T00:00:00Z',
      '/v3/payments?filter[metadata][order]=7',
      '/v3/payments?per_page=1000',
      '/v3/payments?fields[payments]=id,amount,status',
      '/v3/payments?expand[]=account&fields[accounts]=name',
      '/v3/accounts',
      '/v3/accounts?sort=name&filter[name]=ada&filter[currency]=EUR',
      '/v3/accounts?filter[email]=ADA@example.com&filter[created_at][gte]=2020-01-01',
      '/v3/accounts?filter[metadata][tier]=platinum&fields[accounts]=id,name',
      `/v3/accounts/${someAccount}/payments?filter[status]=succeeded&sort=-amount`,
      `/v3/accounts/${account.id}`,
      `/v3/payments/${payment.id}?expand[]=account`,
      '/v3/events',
      `/v3/events?filter[type]=payment.succeeded,payment.partially_refunded&filter[resource_id]=${payment.id}`,
      '/v3/webhook_endpoints',
      `/v3/webhook_endpoints/${hook.id}`,
    ];
    for (const url of lists) await ok(tenant, 'GET', url);
    // Deep pages, the ways that are not OFFSET: from the end, through the bucket counts, by deferred join, and links.next.
    for (const url of [
      '/v3/payments?page=2&per_page=10',
      '/v3/payments?page=9&per_page=10&sort=-amount',
      '/v3/payments?page=5&per_page=10&filter[status]=succeeded',
      `/v3/accounts/${someAccount}/payments?page=2&per_page=2`,
      '/v3/accounts?page=2&per_page=2&sort=name',
      '/v3/events?page=2&per_page=2',
    ]) {
      const page = await ok(tenant, 'GET', url, { on: deep });
      if (page.body.links.next) await ok(tenant, 'GET', new URL(page.body.links.next).pathname + new URL(page.body.links.next).search, { on: deep });
    }
    for (const accept of ['application/x-ndjson', 'text/csv']) {
      for (const url of [
        '/v3/payments/export',
        '/v3/payments/export?filter[status]=succeeded&sort=-amount',
        `/v3/accounts/${someAccount}/payments/export`,
        '/v3/accounts/export?filter[metadata][tier]=platinum',
      ]) {
        await ok(tenant, 'GET', url, { headers: { accept } });
      }
    }
    const event = (await ok(tenant, 'GET', '/v3/events?per_page=1')).body.data[0];
    await ok(tenant, 'GET', `/v3/events/${event.id}`);
    await ok(tenant, 'POST', `/v3/events/${event.id}/resend`);
    await ok(tenant, 'GET', `/v3/webhook_endpoints/${hook.id}/deliveries?per_page=5`);
    await ok(tenant, 'PATCH', `/v3/webhook_endpoints/${hook.id}`, { payload: { enabled_events: ['payment.succeeded'] } });
    await ok(tenant, 'POST', `/v3/webhook_endpoints/${hook.id}/rotate_secret`, { payload: {} });
    const leaving = (await ok(tenant, 'POST', '/v3/webhook_endpoints', { payload: { url: receiver.url, enabled_events: ['account.deleted'] } })).body.data;
    await ok(tenant, 'DELETE', `/v3/webhook_endpoints/${leaving.id}`);
    // Refused: another tenant's record, a missing one, a key without the scope, no valid key.
    expect((await send(tenant, 'GET', `/v3/payments/pay_${'0'.repeat(26)}`)).status).toBe(404);
    expect((await send(tenant, 'POST', '/v3/accounts', { key: tenant.readOnly, payload: { name: 'x', email: 'x@example.com', currency: 'EUR' } })).status).toBe(
      403,
    );
    expect((await send(tenant, 'GET', '/v3/payments', { key: 'not-a-key' })).status).toBe(401);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    recorder = recordSentStatements();
    // The seed, both ways: a load in one transaction (alpha, into an empty table), batches (beta),
    // and a second run paying into the accounts a tenant already has (alpha again).
    const seedAs = async (tenant: string, seed: string, accounts: number, payments: number, mode: SeedOptions['mode']) => {
      const name = `seed ${tenant} ${seed} #${label++}`;
      const { tenantId } = await forRequest(name, () =>
        seedTenant(database.db, { tenant, seed, accounts, payments, mode, batchRows: 50, until: new Date('2026-11-01T00:00:00Z'), fingerprintSecret: 'test' }),
      );
      tenantOf.set(name, tenantId);
      return tenantId;
    };
    for (const [name, mode] of [
      ['alpha', 'auto'],
      ['beta', 'batched'],
    ] as const) {
      const tenantId = await seedAs(name, 'test', 4, 120, mode);
      tenants.push({
        id: tenantId,
        key: await createApiKey(database.db.kysely, tenantId, ['read', 'write']),
        readOnly: await createApiKey(database.db.kysely, tenantId, ['read']),
      });
    }
    await seedAs('alpha', 'more', 0, 60, 'batched');
    // Requests, one at a time, with nothing else running: what is sent meanwhile is theirs (sentStatements.ts).
    app = await appOn(database, { webhooks: { allowPrivateTargets: true } });
    deep = await appOn(database, { listTuning: DEEP_WAY });
    for (const tenant of tenants) await merchantDay(tenant);
    // Another tenant's ids, asked for by each: found by no one but their owner.
    const [alpha, beta] = tenants;
    const betaPayment = (await send(beta, 'GET', '/v3/payments?per_page=1')).body.data[0].id;
    expect((await send(alpha, 'GET', `/v3/payments/${betaPayment}`)).status).toBe(404);
    // Then the work of no request: the sender delivers what the day queued; the purges run (as if their day had come).
    sender = await appOn(database, { webhooks: SENDER });
    await eventually(() => receiver.received.length >= 20);
    await purgeExpiredKeys(database.db.kysely, Date.now() + 365 * DAY);
    await purgeExpiredEvents(database.db, 1, Date.now() + 365 * DAY);
    recorder.stop();
  }, 120_000);
  afterAll(async () => {
    recorder?.stop();
    await sender?.close();
    await app?.close();
    await deep?.close();
    await receiver?.close();
    await database?.drop();
  });

  /** The SQL as matched against the lists above: without its leading marker comment (preparedStatements.ts). */
  const bare = (text: string) => text.replace(/^\/\*.*?\*\/\s*/, '');

  const touchesTenantTables = (statement: SentStatement) => [...TENANT_TABLES].some((table) => new RegExp(`\\b${table}\\b`).test(statement.text));

  it('was a run of every kind of request, each sending statements to tenant tables', () => {
    const sent = recorder.statements.filter((s) => s.request !== undefined && touchesTenantTables(s));
    expect(new Set(sent.map((s) => s.request)).size).toBeGreaterThan(100);
    for (const kind of [
      /^copy /i,
      /^insert into "?payments/i,
      /^update "?accounts/i,
      /^delete from "?webhook_endpoints/i,
      /insert into "?idempotency_keys/i,
      /^insert into "?webhook_deliveries/i,
    ])
      expect(
        sent.some((s) => kind.test(bare(s.text))),
        String(kind),
      ).toBe(true);
  });

  it('filters every tenant table by the requesting tenant in every statement a request sends', async () => {
    const gaps: string[] = [];
    for (const statement of recorder.statements) {
      if (statement.request === undefined) continue;
      for (const gap of await tenantFilterGaps(statement.text, statement.values, tenantOf.get(statement.request)!, statement.copied))
        gaps.push(`${statement.request}: ${gap}\n  ${statement.text}`);
    }
    expect(gaps).toEqual([]);
  });

  it('pins every statement of the work of no request (the webhook sender, the purges) to one tenant too', async () => {
    const across = new Set<string>();
    const seen = new Set<string>();
    for (const statement of recorder.statements) {
      if (statement.request !== undefined || !touchesTenantTables(statement)) continue;
      seen.add(bare(statement.text).split(' ').slice(0, 3).join(' '));
      const owner = tenants.find((t) => statement.values.includes(t.id));
      const gaps = await tenantFilterGaps(statement.text, statement.values, owner?.id ?? '(no tenant named)', statement.copied);
      if (gaps.length > 0) across.add(`${gaps.join('; ')}\n  ${statement.text}`);
    }
    expect([...across]).toEqual([]);
    // The sender claimed and recorded, and both purges deleted.
    expect([...seen]).toEqual(
      expect.arrayContaining(['update "webhook_deliveries" set', 'delete from "events"', 'delete from "webhook_deliveries"', 'delete from "idempotency_keys"']),
    );
  });
});
