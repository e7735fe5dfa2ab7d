import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn, createTestApp, type TestContext } from '../support/testApp.ts';

describe('managing webhook endpoints', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('hooks-owner')).key;
  });
  afterAll(() => t.close());

  const create = (body: object, as = key) =>
    t.send('POST', '/v3/webhook_endpoints', as, { url: 'https://shop.example.com/hooks', enabled_events: ['*'], ...body });

  it('creates one and shows its secret once', async () => {
    const created = await create({ enabled_events: ['payment.succeeded'] });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v3/webhook_endpoints/${created.body.data.id}`);
    expect(created.body.data).toMatchObject({
      url: 'https://shop.example.com/hooks',
      enabled_events: ['payment.succeeded'],
      enabled: true,
      disabled_reason: null,
    });
    expect(created.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = (await t.get(`/v3/webhook_endpoints/${created.body.data.id}`, key)).body.data;
    expect(shown.secret).toBeUndefined();
    expect(JSON.stringify((await t.get('/v3/webhook_endpoints', key)).body)).not.toContain(created.body.data.secret);
  });

  it('changes, lists and deletes them', async () => {
    const id = (await create({})).body.data.id;
    const changed = await t.send('PATCH', `/v3/webhook_endpoints/${id}`, key, { enabled: false, enabled_events: ['account.created'] });
    expect(changed.body.data).toMatchObject({ enabled: false, enabled_events: ['account.created'] });
    const list = (await t.get('/v3/webhook_endpoints', key)).body;
    expect(list.meta.total).toBe(list.data.length);
    expect(list.data.map((e: { id: string }) => e.id)).toContain(id);
    expect((await t.send('DELETE', `/v3/webhook_endpoints/${id}`, key)).status).toBe(204);
    expect((await t.get(`/v3/webhook_endpoints/${id}`, key)).status).toBe(404);
  });

  it('keeps the tenant’s count of endpoints, by which the sender finds the tenants it serves', async () => {
    const { id: tenantId, key: own } = await t.tenant('hooks-counted');
    const count = async () =>
      Number(
        (await t.database.db.kysely.selectFrom('tenants').select('webhook_endpoints').where('id', '=', tenantId).executeTakeFirstOrThrow()).webhook_endpoints,
      );
    expect(await count()).toBe(0);
    const [first, second] = [(await create({}, own)).body.data.id, (await create({}, own)).body.data.id];
    expect(await count()).toBe(2);
    expect((await t.send('DELETE', `/v3/webhook_endpoints/${first}`, own)).status).toBe(204);
    expect((await t.send('DELETE', `/v3/webhook_endpoints/${first}`, own)).status).toBe(404);
    expect(await count()).toBe(1);
    expect((await t.send('DELETE', `/v3/webhook_endpoints/${second}`, own)).status).toBe(204);
    expect(await count()).toBe(0);
  });

  it.each([
    ['http://shop.example.com/hooks', 'must be https'],
    ['https://127.0.0.1/hooks', 'loopback'],
    ['https://10.0.0.8/hooks', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'metadata'],
    ['https://localhost:8443/hooks', 'loopback'],
  ])('refuses %s unless the operator allows private targets', async (url, message) => {
    const refused = await create({ url });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.url.join(' ')).toContain(message);
  });

  it.each(['https://localhost./hooks', 'https://LOCALHOST.:8443/hooks', 'https://api.localhost./hooks'])(
    'refuses %s: a trailing dot names the same host',
    async (url) => {
      const refused = await create({ url });
      expect(refused.status).toBe(422);
      expect(refused.body.codes.url).toEqual(['unsafe_webhook_url']);
      expect(refused.body.errors.url.join(' ')).toContain('loopback');
    },
  );

  it.each([
    ['https://loopback.example.test/hooks', 'loopback.example.test resolves to 127.0.0.1'],
    ['https://intranet.example.test/hooks', 'intranet.example.test resolves to 10.0.0.8'],
    ['https://metadata.example.test/hooks', 'metadata.example.test resolves to 169.254.169.254'],
    ['https://split.example.test/hooks', 'split.example.test resolves to ::1'],
  ])('refuses %s when it is saved: the name resolves to an address a webhook may not reach', async (url, said) => {
    const refused = await create({ url });
    expect(refused.status).toBe(422);
    expect(refused.body.codes.url).toEqual(['unsafe_webhook_url']);
    expect(refused.body.errors.url.join(' ')).toContain(said);
    const id = (await create({})).body.data.id;
    const changed = await t.send('PATCH', `/v3/webhook_endpoints/${id}`, key, { url });
    expect(changed.status).toBe(422);
    expect((await t.get(`/v3/webhook_endpoints/${id}`, key)).body.data.url).toBe('https://shop.example.com/hooks');
  });

  it('saves a name that resolves to a public address, or to nothing yet (every attempt checks it again)', async () => {
    expect((await create({ url: 'https://public.example.test/hooks' })).status).toBe(201);
    expect((await create({ url: 'https://not-yet.example.test/hooks' })).status).toBe(201);
  });

  it('names WEBHOOK_ALLOW_PRIVATE_TARGETS when the URL is on this machine or a private network, and only then', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hooks',
      'http://localhost:8080/hooks',
      'https://localhost/hooks',
      'https://192.168.1.20/hooks',
      'https://loopback.example.test/hooks',
    ]) {
      const refused = await create({ url });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.url.join(' ')).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
    }
    for (const url of ['http://shop.example.com/hooks', 'https://169.254.169.254/latest/meta-data/', 'https://metadata.example.test/hooks']) {
      expect((await create({ url })).body.errors.url.join(' ')).not.toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS');
    }
  });

  it('takes private and http targets, unresolved, when the operator allows them', async () => {
    const local = await appOn(t.database, { webhooks: { allowPrivateTargets: true } });
    try {
      for (const url of ['http://127.0.0.1:8080/hooks', 'https://localhost./hooks', 'https://loopback.example.test/hooks']) {
        const created = await local.inject({
          method: 'POST',
          url: '/v3/webhook_endpoints',
          headers: { authorization: `Bearer ${key}` },
          payload: { url, enabled_events: ['*'] },
        });
        expect(created.statusCode).toBe(201);
      }
    } finally {
      await local.close();
    }
  });

  it('refuses unknown event types and empty lists', async () => {
    expect((await create({ enabled_events: ['payment.exploded'] })).status).toBe(422);
    expect((await create({ enabled_events: [] })).status).toBe(422);
  });

  it('needs the write scope and shows a tenant only its own', async () => {
    const reader = await t.tenant('hooks-owner', ['read']);
    expect((await t.get('/v3/webhook_endpoints', reader.key)).status).toBe(403);
    expect((await create({}, reader.key)).status).toBe(403);
    const id = (await create({})).body.data.id;
    const stranger = await t.tenant('hooks-stranger');
    expect((await t.get(`/v3/webhook_endpoints/${id}`, stranger.key)).status).toBe(404);
    expect((await t.send('PATCH', `/v3/webhook_endpoints/${id}`, stranger.key, { enabled: false })).status).toBe(404);
    expect((await t.send('DELETE', `/v3/webhook_endpoints/${id}`, stranger.key)).status).toBe(404);
    expect((await t.get(`/v3/webhook_endpoints/${id}/deliveries`, stranger.key)).status).toBe(404);
    expect((await t.get('/v3/webhook_endpoints', stranger.key)).body.meta.total).toBe(0);
  });

  it('rotates the secret: a new one, shown once', async () => {
    const { id, secret } = (await create({})).body.data;
    const rotated = await t.send('POST', `/v3/webhook_endpoints/${id}/rotate_secret`, key);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(secret);
  });

  it('trims endpoints and their deliveries to fields[webhook_endpoints] and fields[webhook_deliveries], and refuses unknown fields', async () => {
    const created = (await create({ enabled_events: ['account.created'] })).body.data;
    const list = await t.get('/v3/webhook_endpoints?fields[webhook_endpoints]=url,id', key);
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    for (const endpoint of list.body.data) expect(Object.keys(endpoint)).toEqual(['id', 'url']);
    const one = await t.get(`/v3/webhook_endpoints/${created.id}?fields[webhook_endpoints]=enabled`, key);
    expect(one.body).toEqual({ data: { enabled: true } });
    expect((await t.send('POST', '/v3/accounts', key, { name: 'Ada', email: 'ada@example.com', currency: 'EUR' })).status).toBe(201);
    const deliveries = await t.get(`/v3/webhook_endpoints/${created.id}/deliveries?fields[webhook_deliveries]=status,id`, key);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data.length).toBeGreaterThan(0);
    for (const delivery of deliveries.body.data) expect(Object.keys(delivery)).toEqual(['id', 'status']);
    const unknown = await t.get('/v3/webhook_endpoints?fields[webhook_endpoints]=id,secret', key);
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body.codes)).toContain('unknown_resource_field');
  });
});
