import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/tenantQueries.ts';
import { purgeExpiredEvents } from '../../src/events/purgeEvents.ts';
import { purgeExpiredKeys } from '../../src/idempotency/runIdempotent.ts';
import { card } from '../support/cards.ts';
import { forRequest, recordSentStatements, type SentStatement } from '../support/sentStatements.ts';
import { seed } from '../support/seedHelpers.ts';
import { tenantFilterGaps, TENANT_TABLES } from '../support/tenantFilters.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';
import { eventually, startReceiver } from '../support/webhookReceiver.ts';

/**
 * Statements sent outside any tenant's request that read or write tenant tables across tenants,
 * each with why (docs/scaling.md, "Past one primary: Citus, distributed by tenant", says what of
 * them runs on every shard as it is and what Citus needs changed: the row locks). Matched on the
 * SQL, its leading marker comment removed.
 */
const CROSS_TENANT: Array<{ why: string; sql: RegExp }> = [
  {
    why: "the webhook sender: claims every tenant's due deliveries and makes their queue heads (one sender serves all), then reads each endpoint and records each outcome by id",
    sql: /^(select|update) .*"webhook_(deliveries|endpoints)"/,
  },
  {
    why: 'the webhook sender, per delivery: the endpoint and the event read by id (they could name the delivery’s tenant_id)',
    sql: /^select "id", "resource" from "events" where "id" = \$1$/,
  },
  {
    why: "the event purge: every tenant's events (and their deliveries) older than the retention",
    sql: /^(select .* from "events" where "created_at" < |delete from "(events|webhook_deliveries)" where "(id|event_id)" in )/,
  },
  { why: "the idempotency-key purge: every tenant's keys older than their retention", sql: /^delete from "idempotency_keys" where "created_at" < \$1$/ },
];

/**
 * Statements of a tenant's request that Citus could not route to one shard today, each with the
 * change that would (docs/scaling.md). Each must still be seen, so the list never outlives them.
 */
const KNOWN_GAPS: Array<{ why: string; sql: RegExp }> = [
  {
    why: "a metadata search names its tenant as (tenant_id || '') to keep SQLite off the tenant's indexes (listPageQueries.ts): on Citus it must be tenant_id itself",
    sql: /\("tenant_id" \|\| ''\) = /,
  },
];

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
    for (const name of ['alpha', 'beta']) {
      const { tenantId } = await seed(database.db, name, 4, 120);
      tenants.push({
        id: tenantId,
        key: await createApiKey(database.db.kysely, tenantId, ['read', 'write']),
        readOnly: await createApiKey(database.db.kysely, tenantId, ['read']),
      });
    }
    recorder = recordSentStatements();
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
    const known = new Set<string>();
    for (const statement of recorder.statements) {
      if (statement.request === undefined) continue;
      const found = await tenantFilterGaps(statement.text, statement.values, tenantOf.get(statement.request)!);
      const listed = KNOWN_GAPS.find((gap) => gap.sql.test(bare(statement.text)));
      if (listed && found.length > 0) known.add(listed.why);
      else for (const gap of found) gaps.push(`${statement.request}: ${gap}\n  ${statement.text}`);
    }
    expect(gaps).toEqual([]);
    expect([...known]).toEqual(KNOWN_GAPS.map((gap) => gap.why));
  });

  it('sends across tenants only what is listed as cross-tenant, and says why', async () => {
    const unlisted = new Set<string>();
    const seen = new Set<string>();
    for (const statement of recorder.statements) {
      if (statement.request !== undefined || !touchesTenantTables(statement)) continue;
      const owner = tenants.find((t) => statement.values.includes(t.id));
      if (owner && (await tenantFilterGaps(statement.text, statement.values, owner.id)).length === 0) continue;
      const listed = CROSS_TENANT.find((exception) => exception.sql.test(bare(statement.text)));
      if (listed) seen.add(listed.why);
      else unlisted.add(statement.text);
    }
    expect([...unlisted]).toEqual([]);
    expect([...seen].sort()).toEqual(CROSS_TENANT.map((exception) => exception.why).sort());
  });
});
