import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { card, CARDS } from '../support/cards.ts';
import {
  accountBody,
  actionBody,
  contentType,
  headerText,
  MALFORMED_NAMES,
  pathId,
  paymentBody,
  PROTOTYPE_MEMBER_FILTERS,
  queryString,
  rawBody,
} from '../support/hostileInputs.ts';
import { reveals } from '../support/secretSpellings.ts';

/**
 * Property-based fuzzing of every route through HTTP (app.inject): generated query strings,
 * paths, headers and bodies. For every request: never a 5xx; every 4xx a problem document
 * naming what was wrong, of bounded size; nothing of another tenant's records, no key and no
 * card number (in any spelling) in the answer; no request id shaped like a secret; no query
 * naming `__proto__` or a malformed name answered as if it were not there. At least 10,000
 * requests per run and database; the app still serves at the end.
 */

/** Request ids a client may try that must never be kept: they would be logged on every line. */
const SECRET_SHAPED_IDS = ['4242-4242-4242-4242', '4242.4242.4242.4242', '5555555555554444', 'apk_abcdefghijklmnop'];

/** Names of the query's pairs, decoded as a server reads them (undecodable ones as written). */
function queryNames(url: string): string[] {
  const q = url.indexOf('?');
  if (q === -1) return [];
  return url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=')[0].replace(/\+/g, ' ');
      try {
        return decodeURIComponent(name);
      } catch {
        return name;
      }
    });
}
const RUNS = { lists: 3500, reads: 1500, accountWrites: 1500, paymentWrites: 2500, anything: 1000 };
const TOTAL = Object.values(RUNS).reduce((a, b) => a + b, 0);
// FUZZ_SEED=<n> replays a run (fast-check prints the seed of a failing one).
const seedOption = process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {};

interface Fixture {
  writer: string;
  reader: string;
  ownAccounts: string[];
  ownPayments: string[];
  /** Identifiers and marker texts of the other tenant's records: never to be seen by the first. */
  foreign: string[];
  foreignAccounts: string[];
  foreignPayments: string[];
}

describe('fuzzing every route with hostile input', () => {
  let t: TestContext;
  let f: Fixture;
  let sent = 0;
  const statuses: Record<number, number> = {};

  beforeAll(async () => {
    t = await createTestApp();
    const a = await t.tenant('fuzz-a');
    const reader = await t.tenant('fuzz-a', ['read']);
    const b = await t.tenant('fuzz-b');
    await seed(t.database.db, 'fuzz-a', 4, 30, 'fuzz-a');
    await seed(t.database.db, 'fuzz-b', 4, 30, 'fuzz-b');
    // Tenant B also gets records made through the API, carrying marker texts, in several states.
    const marker = 'zqmarkerb';
    const account = await t.send('POST', '/v3/accounts', b.key, {
      name: `${marker} name`,
      email: `${marker}@example.com`,
      currency: 'USD',
      metadata: { [`${marker}_k`]: `${marker}_v` },
    });
    for (const [capture, number] of [
      [true, CARDS.visa],
      [false, CARDS.mastercard],
      [true, CARDS.declined],
    ] as const) {
      await t.send('POST', '/v3/payments', b.key, {
        account_id: account.body.data.id,
        amount: 1234,
        currency: 'USD',
        capture,
        reference: `${marker}-ref`,
        description: `${marker} desc`,
        card: card(number),
      });
    }
    const db = t.database.db.kysely;
    const ids = async (table: 'accounts' | 'payments', tenantId: string) =>
      (await db.selectFrom(table).select('id').where('tenant_id', '=', tenantId).execute()).map((r) => r.id);
    const foreignAccounts = await ids('accounts', b.id);
    const foreignPayments = await ids('payments', b.id);
    f = {
      writer: a.key,
      reader: reader.key,
      ownAccounts: await ids('accounts', a.id),
      ownPayments: await ids('payments', a.id),
      foreign: [b.id, b.key, marker, ...foreignAccounts, ...foreignPayments],
      foreignAccounts,
      foreignPayments,
    };
  });
  afterAll(() => t.close());

  const authorization = () =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constant(`Bearer ${f.writer}`) },
      { weight: 2, arbitrary: fc.constant(`Bearer ${f.reader}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          headerText(80),
          headerText(20).map((s) => `Bearer ${s}`),
          fc.constantFrom(
            `bearer ${f.writer}`,
            `Bearer  ${f.writer}`,
            `Bearer ${f.writer}x`,
            `Bearer ${f.writer.slice(0, -1)}`,
            `Basic ${f.writer}`,
            `Bearer ${'A'.repeat(5000)}`,
          ),
        ),
      },
    );

  const headers = (withBody: boolean) =>
    fc
      .record(
        {
          authorization: authorization(),
          'idempotency-key': fc.oneof(
            fc.constant(undefined),
            headerText(40),
            fc.stringMatching(/^[a-z0-9-]{1,12}$/),
            fc.uuid(),
            fc.uuid(),
            fc.constant('k'.repeat(300)),
          ),
          'x-request-id': fc.oneof(fc.constant(undefined), headerText(100), fc.constantFrom(...SECRET_SHAPED_IDS)),
          expect: fc.oneof({ weight: 40, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('100-continue', 'bogus', '200-ok', '') }),
          'content-type': withBody ? contentType : fc.constant(undefined),
          accept: fc.oneof(fc.constant(undefined), fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', '')),
          'x-forwarded-for': fc.oneof(fc.constant(undefined), headerText(30)),
        },
        { requiredKeys: ['authorization', 'content-type'] },
      )
      .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>);

  async function check(request: InjectOptions) {
    sent++;
    const response = await t.app.inject(request);
    const status = response.statusCode;
    statuses[status] = (statuses[status] ?? 0) + 1;
    const text = response.body;
    const what = `${request.method} ${request.url} → ${status} ${text.slice(0, 300)}`;
    expect(status, what).toBeLessThan(500);
    expect(status, what).toBeGreaterThanOrEqual(200);
    if (status >= 400) {
      expect(response.headers['content-type'], what).toMatch(/^application\/problem\+json/);
      const problem = request.method === 'HEAD' ? { status, title: '', detail: 'x' } : JSON.parse(text);
      expect(problem.status, what).toBe(status);
      expect(typeof problem.title, what).toBe('string');
      const named = (problem.errors && Object.keys(problem.errors).length > 0) || (typeof problem.detail === 'string' && problem.detail.length > 0);
      expect(named, `${what}: a problem must name what was wrong`).toBe(true);
      if (problem.errors)
        for (const messages of Object.values(problem.errors)) expect(Array.isArray(messages) && (messages as unknown[]).length > 0, what).toBe(true);
      if (status === 422 && request.method !== 'HEAD') expect(Object.keys(problem.errors ?? {}).length, `${what}: a 422 names its fields`).toBeGreaterThan(0);
      if (status === 401) expect(response.headers['www-authenticate'], what).toMatch(/^Bearer/);
      // However big or strange the request, the answer stays small (a 422 names at most 20 fields).
      expect(text.length, `${what}: a problem of ${text.length} characters`).toBeLessThan(status === 422 ? 16_384 : 32_768);
      for (const number of Object.values(CARDS)) expect(reveals(text, number), `${what}: echoed a card number in some spelling`).toBe(false);
    } else if (status !== 204 && request.method !== 'HEAD') {
      expect(response.headers['content-type'], what).toMatch(/^application\/json/);
      JSON.parse(text);
    }
    // A name qs would have dropped or reshaped is never answered as if the query did not have it.
    const names = queryNames(String(request.url));
    if (names.some((n) => n.split(/[[\]]/).includes('__proto__') || MALFORMED_NAMES.includes(n)))
      expect(status, `${what}: a malformed name was ignored`).not.toBe(200);
    const list = /^\/v3\/(accounts|payments|accounts\/[^/?]+\/payments)\/?(\?|$)/.test(String(request.url));
    if (list && names.some((n) => PROTOTYPE_MEMBER_FILTERS.includes(n)))
      expect(status, `${what}: a filter named like a prototype member was ignored`).not.toBe(200);
    const givenId = (request.headers as Record<string, string>)['x-request-id'];
    if (SECRET_SHAPED_IDS.includes(givenId)) expect(response.headers['x-request-id'], `${what}: kept a secret-shaped request id`).not.toBe(givenId);
    // Nothing of tenant B that the request did not itself carry; never a key or a card number.
    const asked = `${request.url} ${JSON.stringify(request.headers)} ${String(request.payload ?? '')}`;
    const answered = `${JSON.stringify(response.headers)} ${text}`;
    for (const marker of f.foreign) {
      if (!asked.includes(marker)) expect(answered.includes(marker), `${what}: leaked ${marker}`).toBe(false);
    }
    expect(answered.includes(f.writer) || answered.includes(f.reader), `${what}: echoed a key`).toBe(false);
    for (const number of Object.values(CARDS)) expect(answered.includes(number), `${what}: echoed a card number`).toBe(false);
    expect(response.headers['x-content-type-options'], what).toBe('nosniff');
  }

  /**
   * Requests go in batches sent together (as concurrent clients would), which also keeps the
   * run short while the database answers; the failing request is named in the assertion message.
   */
  const BATCH = 10;
  const run = async (arbitrary: fc.Arbitrary<InjectOptions>, requests: number) => {
    const started = Date.now();
    const before = sent;
    await fc.assert(
      fc.asyncProperty(fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        await Promise.all(batch.map(check));
      }),
      { numRuns: Math.ceil(requests / BATCH), ...seedOption },
    );
    if (process.env.FUZZ_TIMING) console.log(`${sent - before} requests in ${Date.now() - started} ms`, JSON.stringify(statuses));
  };

  it(`answers ${TOTAL} generated requests without a 5xx, with problems that name the input, leaking nothing`, { timeout: 600_000 }, async () => {
    const allAccounts = () => [...f.ownAccounts, ...f.foreignAccounts];
    const allPayments = () => [...f.ownPayments, ...f.foreignPayments];

    // Lists: every query-string shape on every list endpoint.
    await run(
      fc
        .tuple(
          fc.oneof(
            fc.constant('/v3/accounts'),
            fc.constant('/v3/payments'),
            pathId(allAccounts()).map((id) => `/v3/accounts/${id}/payments`),
          ),
          queryString,
          headers(false),
        )
        .map(([path, query, h]) => ({ method: 'GET' as const, url: query ? `${path}?${query}` : path, headers: h })),
      RUNS.lists,
    );
    // Single reads: own, foreign, malformed ids.
    await run(
      fc
        .tuple(
          fc.oneof(
            pathId(allAccounts()).map((id) => `/v3/accounts/${id}`),
            pathId(allPayments()).map((id) => `/v3/payments/${id}`),
          ),
          fc.option(queryString),
          headers(false),
        )
        .map(([path, query, h]) => ({ method: 'GET' as const, url: query ? `${path}?${query}` : path, headers: h })),
      RUNS.reads,
    );
    // Account writes.
    await run(
      fc
        .tuple(fc.constantFrom('POST', 'PATCH', 'DELETE'), pathId(allAccounts()), rawBody(accountBody), headers(true), fc.option(queryString, { freq: 5 }))
        .map(([method, id, payload, h, query]) => ({
          method: method as 'POST' | 'PATCH' | 'DELETE',
          url: (method === 'POST' ? '/v3/accounts' : `/v3/accounts/${id}`) + (query ? `?${query}` : ''),
          headers: h,
          ...(payload === undefined ? {} : { payload }),
        })),
      RUNS.accountWrites,
    );
    // Payment writes and actions.
    await run(
      fc
        .tuple(fc.constantFrom('', '', '', '/capture', '/cancel', '/refunds', '/refund'), pathId(allPayments()), fc.boolean(), headers(true))
        .chain(([action, id, _, h]) =>
          rawBody(action === '' ? paymentBody(allAccounts()) : actionBody).map((payload) => ({
            method: 'POST' as const,
            url: action === '' ? '/v3/payments' : `/v3/payments/${id}${action}`,
            headers: h,
            ...(payload === undefined ? {} : { payload }),
          })),
        ),
      RUNS.paymentWrites,
    );
    // Any method on any path, health checks included.
    await run(
      fc
        .tuple(
          fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
          fc.oneof(
            fc.constantFrom(
              '/health',
              '/ready',
              '/v3',
              '/v3/',
              '/',
              '//v3/payments',
              '/v3//payments',
              '/v3/payments/',
              '/V3/PAYMENTS',
              '/v2/payments',
              '/v3/payments/..%2f..%2fhealth',
            ),
            fc.webPath(),
            pathId(allPayments()).map((id) => `/v3/payments/${id}/${id}`),
          ),
          fc.option(queryString),
          headers(true),
          fc.option(rawBody(fc.jsonValue())),
        )
        .map(([method, path, query, h, payload]) => ({
          method: method as 'GET',
          url: (path.startsWith('/') ? path : `/${path}`) + (query ? `?${query}` : ''),
          headers: h,
          ...(payload === null || payload === undefined || method === 'GET' || method === 'HEAD' ? {} : { payload }),
        })),
      RUNS.anything,
    );

    expect(sent).toBeGreaterThanOrEqual(10_000);
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/ready' })).statusCode).toBe(200);
    const list = await t.get('/v3/payments?per_page=1', f.writer);
    expect(list.status).toBe(200);
    // B's own view is intact: A's fuzzing changed none of B's records.
    expect(await t.database.db.kysely.selectFrom('payments').select('id').where('id', 'in', f.foreignPayments).execute()).toHaveLength(
      f.foreignPayments.length,
    );
  });
});
