import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { DOCS_CSP } from '../../src/reference/referencePage.ts';

describe('the changelog page (/docs/changelog)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is served without a key, as HTML under the reference page’s policy, and is not an endpoint of the document', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/changelog' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(page.body).toContain('<h2 id="unreleased">');
    const document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
    expect(Object.keys(document.paths)).not.toContain('/docs/changelog');
    expect(document.info.description).toContain('[Changelog](/docs/changelog)');
  });
});
