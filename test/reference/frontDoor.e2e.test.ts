import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';

describe('the front door: what a person or a tool finds at the root', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET / answers JSON naming the API and linking the reference, the OpenAPI document and health, each of which answers', async () => {
    const response = await t.app.inject({ url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json() as { name: string; version: string; links: Record<string, string> };
    expect(body.name).toBe('Accounts & Payments API v3');
    expect(body.version).toMatch(/^3\.\d+\.\d+$/);
    expect(body.links).toMatchObject({ reference: '/docs', openapi: '/v3/openapi.json', health: '/health' });
    for (const link of Object.values(body.links)) {
      const followed = await t.app.inject({ url: link });
      expect([200, 302], `${link}: ${followed.statusCode}`).toContain(followed.statusCode);
    }
  });

  it('GET /openapi.json, where tools look first, redirects to /v3/openapi.json', async () => {
    const response = await t.app.inject({ url: '/openapi.json' });
    expect(response.statusCode).toBe(308);
    expect(response.headers.location).toBe('/v3/openapi.json');
  });
});
