import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';

describe('health, readiness, request ids and unknown routes', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reports liveness and readiness without a key', async () => {
    expect((await t.app.inject({ url: '/health' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ url: '/ready' })).json()).toEqual({ status: 'ready' });
  });

  it('gives every response a request id, keeping a plain one the client sent', async () => {
    const own = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'trace-123' } });
    expect(own.headers['x-request-id']).toBe('trace-123');
    const hostile = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'a b\u0007<script>' } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.app.inject({ url: '/v3/nothing' })).headers['x-request-id']).toBeTruthy();
  });

  it('says in Server-Timing how long the server worked on each response, problems included', async () => {
    const { key } = await t.tenant('timing');
    for (const response of [await t.get('/v3/payments?per_page=3', key), await t.get('/v3/payments?per_page=0', key)]) {
      expect(response.headers['server-timing']).toMatch(/^app;dur=\d+\.\d$/);
    }
  });

  it.each(['/v3/nothing', '/v2/payments', '/v4/accounts'])('%s is a 404 problem', async (url) => {
    const response = await t.app.inject({ url });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('reports not ready once the database is gone', async () => {
    const other = await createTestApp();
    await other.database.db.close();
    const response = await other.app.inject({ url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBeDefined();
    await other.app.close();
  });
});
