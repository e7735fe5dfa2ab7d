import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { card } from '../support/cards.ts';
import { registeredRoutes } from '../support/routeList.ts';

type Doc = Record<string, any>;

describe('the OpenAPI 3.1 document at /v3/openapi.json', { timeout: 60_000 }, () => {
  let t: TestContext;
  let doc: Doc;
  let key: string;
  let readOnlyKey: string;
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats.default(ajv);
  const exercised = new Set<string>();

  /** The documented schema for one response, compiled by reference into the document itself. */
  function responseSchema(method: string, path: string, status: number, mediaType: string) {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    const response = operation.responses[String(status)];
    expect(response, `${method} ${path} documents ${status}`).toBeDefined();
    return response.content?.[mediaType];
  }

  /** Sends a real request and checks its status, media type and body against the document. */
  async function conforms(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    url: string,
    status: number,
    options: { payload?: unknown; key?: string | null; headers?: Record<string, string> } = {},
  ) {
    const authorization = options.key === null ? {} : { authorization: `Bearer ${options.key ?? key}` };
    const response = await t.app.inject({
      method,
      url,
      headers: { ...authorization, ...options.headers },
      ...(options.payload === undefined ? {} : { payload: options.payload as object }),
    });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status);
    exercised.add(`${method} ${path} ${status}`);
    if (status === 204 || status === 304) return response;
    const mediaType = String(response.headers['content-type']).split(';')[0];
    const media = responseSchema(method, path, status, mediaType);
    expect(media, `${method} ${path} ${status} documents ${mediaType}`).toBeDefined();
    const pointer = `openapi.json#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method.toLowerCase()}/responses/${status}/content/${mediaType.replace('/', '~1')}/schema`;
    const check = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
    const body = response.json();
    expect(check(body), `${method} ${url} ${status}: ${JSON.stringify(check.errors)}`).toBe(true);
    return response;
  }

  beforeAll(async () => {
    t = await createTestApp();
    await seed(t.database.db, 'acme', 3, 30);
    key = (await t.tenant('acme')).key;
    readOnlyKey = (await t.tenant('acme', ['read'])).key;
    doc = (await t.app.inject({ url: '/v3/openapi.json' })).json();
    ajv.addSchema(doc, 'openapi.json');
  }, 120_000);
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document (maintained validator)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, JSON.stringify('errors' in result ? result.errors : [])).toBe(true);
    expect(result.warnings ?? []).toEqual([]);
  });

  it('documents every route the app has registered, and nothing else', () => {
    const routes = registeredRoutes(t.app)
      .filter((r) => !r.path.startsWith('/docs'))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = Object.entries(doc.paths as Doc)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(routes.length).toBeGreaterThanOrEqual(15);
    expect(documented).toEqual(routes);
  });

  it('names the resources once, as components', () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(['Account', 'Event', 'Payment', 'Problem', 'WebhookDelivery', 'WebhookEndpoint']);
    const single = doc.paths['/v3/payments/{payment}'].get.responses['200'].content['application/json'].schema;
    expect(single.properties.data).toEqual({ $ref: '#/components/schemas/Payment' });
    const page = doc.paths['/v3/accounts'].get.responses['200'].content['application/json'].schema;
    expect(page.properties.data.items).toEqual({ $ref: '#/components/schemas/Account' });
  });

  it('names each operation for code generators, uniquely', () => {
    const ids = Object.values(doc.paths as Doc).flatMap((item) => Object.values(item as Doc).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'listAccounts',
        'getAccount',
        'createAccount',
        'updateAccount',
        'deleteAccount',
        'listPayments',
        'listAccountPayments',
        'getPayment',
        'createPayment',
        'capturePayment',
        'cancelPayment',
        'refundPayment',
        'health',
        'ready',
        'openapi',
      ]),
    );
  });

  it('names every filter, range operator, sort and paging parameter of each list with its pattern', () => {
    const names = (path: string) => doc.paths[path].get.parameters.filter((p: Doc) => p.in === 'query').map((p: Doc) => p.name);
    const payments = names('/v3/payments');
    for (const op of ['gte', 'gt', 'lte', 'lt']) {
      expect(payments).toContain(`filter[amount][${op}]`);
      expect(payments).toContain(`filter[created_at][${op}]`);
    }
    expect(payments).toEqual(
      expect.arrayContaining([
        'page',
        'per_page',
        'sort',
        'filter[status]',
        'filter[currency]',
        'filter[account_id]',
        'filter[card_brand]',
        'filter[card_last4]',
        'filter[reference]',
      ]),
    );
    expect(names('/v3/accounts/{account}/payments')).toEqual(payments);
    expect(names('/v3/accounts')).toEqual(
      expect.arrayContaining(['filter[status]', 'filter[currency]', 'filter[email]', 'filter[name]', 'filter[created_at][gte]', 'sort']),
    );
    for (const parameter of doc.paths['/v3/payments'].get.parameters) expect(parameter.description, parameter.name).toBeTruthy();
    const sort = doc.paths['/v3/payments'].get.parameters.find((p: Doc) => p.name === 'sort');
    expect(new RegExp(sort.schema.pattern).test('-amount,created_at')).toBe(true);
  });

  it('documents metadata search as one deepObject parameter keyed by the metadata key rule, on lists and exports', () => {
    for (const path of ['/v3/payments', '/v3/accounts', '/v3/accounts/{account}/payments', '/v3/payments/export', '/v3/accounts/export']) {
      const parameter = doc.paths[path].get.parameters.find((p: Doc) => p.name === 'filter[metadata]');
      expect(parameter, path).toMatchObject({ in: 'query', style: 'deepObject', explode: true, schema: { type: 'object' } });
      expect(new RegExp(parameter.schema.propertyNames.pattern).test('crm.id:v-1_x'), path).toBe(true);
      expect(new RegExp(parameter.schema.propertyNames.pattern).test('no spaces'), path).toBe(false);
      expect(new RegExp(parameter.schema.additionalProperties.pattern).test('web,app'), path).toBe(true);
    }
  });

  it('declares the bearer scheme on every /v3 operation but the document itself, and none on health', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, item] of Object.entries(doc.paths as Doc)) {
      for (const operation of Object.values(item as Doc)) {
        const secured = path.startsWith('/v3/') && path !== '/v3/openapi.json';
        expect(operation.security, path).toEqual(secured ? [{ bearerAuth: [] }] : []);
        if (secured) expect(operation.responses['401'].content['application/problem+json']).toBeDefined();
      }
    }
  });

  it('gives an example for every response, each valid against its own schema', () => {
    let examples = 0;
    for (const [path, item] of Object.entries(doc.paths as Doc)) {
      for (const [method, operation] of Object.entries(item as Doc)) {
        for (const [status, response] of Object.entries(operation.responses as Doc)) {
          for (const [mediaType, media] of Object.entries((response.content ?? {}) as Doc)) {
            if (!media.schema || path === '/v3/openapi.json') continue;
            expect(media.example, `${method} ${path} ${status} ${mediaType}`).toBeDefined();
            const pointer = `openapi.json#/paths/${path.replaceAll('/', '~1')}/${method}/responses/${status}/content/${mediaType.replace('/', '~1')}/schema`;
            const check = ajv.compile({ $ref: pointer });
            expect(check(media.example), `${method} ${path} ${status}: ${JSON.stringify(check.errors)}`).toBe(true);
            examples++;
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(50);
  });

  it('shows /health and /ready answering what they answer, not a resource', async () => {
    for (const path of ['/health', '/ready']) {
      const live = await t.app.inject({ method: 'GET', url: path });
      expect(doc.paths[path].get.responses['200'].content['application/json'].example).toEqual(live.json());
    }
  });

  it('gives every write a request example that succeeds as it stands (a payment’s account_id swapped for one of yours)', async () => {
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'Example Target', email: 'target@example.com', currency: 'EUR' })).body.data.id;
    const authorized = async () =>
      (await t.send('POST', '/v3/payments', key, { account_id: account, amount: 3000, currency: 'EUR', capture: false, card: card() })).body.data.id;
    const succeeded = (await t.send('POST', '/v3/payments', key, { account_id: account, amount: 3000, currency: 'EUR', card: card() })).body.data.id;
    const ids: Record<string, () => Promise<string>> = {
      '/v3/accounts/{account}': async () => account,
      '/v3/payments/{payment}/capture': authorized,
      '/v3/payments/{payment}/refunds': async () => succeeded,
      '/v3/webhook_endpoints/{endpoint}': async () =>
        (await t.send('POST', '/v3/webhook_endpoints', key, { url: 'https://hooks.example.com/target', enabled_events: ['payment.succeeded'] })).body.data.id,
    };
    let tried = 0;
    for (const [path, item] of Object.entries(doc.paths as Doc)) {
      for (const [method, operation] of Object.entries(item as Doc)) {
        const body = operation.requestBody?.content?.['application/json'];
        if (!body) continue;
        const example = body.example;
        expect(example, `${method} ${path} has a request example`).toBeDefined();
        const payload = path === '/v3/payments' ? { ...example, account_id: account } : example;
        const url = path.includes('{') ? path.replace(/\{[a-z]+\}/, await ids[path]()) : path;
        const response = await t.send(method.toUpperCase() as 'POST', url, key, payload);
        expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
        tried++;
      }
    }
    expect(tried).toBe(7);
  });

  it('shows problem examples about the operation’s own resource and scope', () => {
    const example = (path: string, method: string, status: number) => doc.paths[path][method].responses[status].content['application/problem+json'].example;
    expect(example('/v3/accounts/{account}', 'get', 404).detail).toMatch(/^No account acc_/);
    expect(example('/v3/payments/{payment}', 'get', 404).detail).toMatch(/^No payment pay_/);
    expect(example('/v3/accounts', 'get', 403).detail).toBe('This API key lacks the read scope.');
    expect(example('/v3/accounts', 'post', 403).detail).toBe('This API key lacks the write scope.');
    expect(example('/v3/accounts/{account}', 'patch', 409).detail).toBe('A closed account cannot be changed.');
    expect(example('/v3/payments/{payment}/refunds', 'post', 409).type).toMatch(/invalid-transition$/);
  });

  it('every endpoint answers with what the document says, success and problems alike', async () => {
    const accountsPage = await conforms('GET', '/v3/accounts', '/v3/accounts?per_page=2&sort=-created_at', 200);
    const account = accountsPage.json().data[0].id;
    await conforms('GET', '/v3/accounts/{account}', `/v3/accounts/${account}`, 200);
    await conforms('GET', '/v3/payments', '/v3/payments?per_page=5&filter[status]=succeeded,failed&filter[amount][gte]=1&sort=-amount', 200);
    await conforms('GET', '/v3/accounts/{account}/payments', `/v3/accounts/${account}/payments?page=99`, 200);
    const created = await conforms('POST', '/v3/accounts', '/v3/accounts', 201, {
      payload: { name: 'Doc Check', email: 'doc@example.com', currency: 'EUR' },
    });
    const fresh = created.json().data.id;
    await conforms('PATCH', '/v3/accounts/{account}', `/v3/accounts/${fresh}`, 200, { payload: { name: 'Doc Checked' } });
    const charge = (capture: boolean) => ({ account_id: account, amount: 1200, currency: 'EUR', capture, card: card() });
    const paid = (await conforms('POST', '/v3/payments', '/v3/payments', 201, { payload: charge(true) })).json().data.id;
    await conforms('GET', '/v3/payments/{payment}', `/v3/payments/${paid}`, 200);
    await conforms('POST', '/v3/payments/{payment}/refunds', `/v3/payments/${paid}/refunds`, 200, { payload: { amount: 200 } });
    const held = (await conforms('POST', '/v3/payments', '/v3/payments', 201, { payload: charge(false) })).json().data.id;
    await conforms('POST', '/v3/payments/{payment}/capture', `/v3/payments/${held}/capture`, 200, { payload: {} });
    const held2 = (await conforms('POST', '/v3/payments', '/v3/payments', 201, { payload: charge(false) })).json().data.id;
    await conforms('POST', '/v3/payments/{payment}/cancel', `/v3/payments/${held2}/cancel`, 200);
    await conforms('DELETE', '/v3/accounts/{account}', `/v3/accounts/${fresh}`, 204);
    const events = await conforms('GET', '/v3/events', '/v3/events?per_page=3&filter[type]=account.created', 200);
    const eventId = events.json().data[0].id;
    await conforms('GET', '/v3/events/{event}', `/v3/events/${eventId}`, 200);
    const endpointBody = { url: 'https://shop.example.com/hooks', enabled_events: ['*'] };
    const hook = (await conforms('POST', '/v3/webhook_endpoints', '/v3/webhook_endpoints', 201, { payload: endpointBody })).json().data.id;
    await conforms('GET', '/v3/webhook_endpoints', '/v3/webhook_endpoints', 200);
    await conforms('GET', '/v3/webhook_endpoints/{endpoint}', `/v3/webhook_endpoints/${hook}`, 200);
    await conforms('PATCH', '/v3/webhook_endpoints/{endpoint}', `/v3/webhook_endpoints/${hook}`, 200, { payload: { enabled: false } });
    await conforms('PATCH', '/v3/webhook_endpoints/{endpoint}', `/v3/webhook_endpoints/${hook}`, 200, { payload: { enabled: true } });
    await conforms('POST', '/v3/webhook_endpoints/{endpoint}/rotate_secret', `/v3/webhook_endpoints/${hook}/rotate_secret`, 200);
    await conforms('POST', '/v3/events/{event}/resend', `/v3/events/${eventId}/resend`, 202);
    await conforms('GET', '/v3/webhook_endpoints/{endpoint}/deliveries', `/v3/webhook_endpoints/${hook}/deliveries`, 200);
    await conforms('DELETE', '/v3/webhook_endpoints/{endpoint}', `/v3/webhook_endpoints/${hook}`, 204);
    await conforms('GET', '/health', '/health', 200, { key: null });
    await conforms('GET', '/ready', '/ready', 200, { key: null });
    await conforms('GET', '/', '/', 200, { key: null });
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(responseSchema('GET', '/metrics', 200, String(metrics.headers['content-type']).split(';')[0])).toBeDefined();
    expect(metrics.body).toMatch(/^# HELP /m);
    exercised.add('GET /metrics 200');
    const exports = [
      ['/v3/accounts/export', '/v3/accounts/export?sort=-created_at'],
      ['/v3/payments/export', '/v3/payments/export?filter[status]=succeeded,failed'],
      ['/v3/accounts/{account}/payments/export', `/v3/accounts/${account}/payments/export`],
    ];
    for (const [path, url] of exports) {
      for (const accept of ['application/x-ndjson', 'text/csv']) {
        const response = await t.app.inject({ url, headers: { authorization: `Bearer ${key}`, accept } });
        expect(response.statusCode, url).toBe(200);
        expect(responseSchema('GET', path, 200, String(response.headers['content-type']).split(';')[0]), `${path} ${accept}`).toBeDefined();
      }
      exercised.add(`GET ${path} 200`);
    }

    // problems
    await conforms('GET', '/v3/payments', '/v3/payments', 401, { key: null });
    await conforms('POST', '/v3/accounts', '/v3/accounts', 403, { key: readOnlyKey, payload: { name: 'x', email: 'x@example.com', currency: 'EUR' } });
    await conforms('GET', '/v3/payments/{payment}', '/v3/payments/pay_nope', 404);
    await conforms('GET', '/v3/accounts/{account}/payments', '/v3/accounts/acc_nope/payments', 404);
    await conforms('GET', '/v3/payments', '/v3/payments?per_page=5001&filter[colour]=red', 422);
    await conforms('GET', '/v3/payments/export', '/v3/payments/export?filter[colour]=red', 422);
    await conforms('GET', '/v3/payments/export', '/v3/payments/export', 406, { headers: { accept: 'application/json' } });
    await conforms('POST', '/v3/payments/{payment}/capture', `/v3/payments/${paid}/capture`, 409, { payload: {} });
    await conforms('DELETE', '/v3/accounts/{account}', `/v3/accounts/${account}`, 409);
    await conforms('POST', '/v3/accounts', '/v3/accounts', 415, { payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await conforms('POST', '/v3/accounts', '/v3/accounts', 400, { payload: '{"name":', headers: { 'content-type': 'application/json' } });
    await conforms('PATCH', '/v3/accounts/{account}', `/v3/accounts/${account}`, 422, { payload: { email: 'not-an-email' } });

    // every documented success response was exercised for real
    const successes = Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
      Object.entries(item as Doc).flatMap(([method, operation]) =>
        Object.keys(operation.responses)
          .filter((s) => /^2/.test(s))
          .map((s) => `${method.toUpperCase()} ${path} ${s}`),
      ),
    );
    expect(successes.filter((s) => !exercised.has(s) && !s.startsWith('GET /v3/openapi.json'))).toEqual([]);
  });

  it('documents a 503 that a real outage produces', async () => {
    const other = await createTestApp();
    await other.database.db.close();
    const response = await other.app.inject({ url: '/ready' });
    await other.app.close();
    expect(response.statusCode).toBe(503);
    const check = ajv.compile({ $ref: 'openapi.json#/paths/~1ready/get/responses/503/content/application~1problem+json/schema' });
    expect(check(response.json())).toBe(true);
  });
});
