import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';

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
