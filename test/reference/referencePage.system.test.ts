import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { launchChromium } from '../support/browser.ts';
import { DOCS_CSP, PRODUCT_NAME } from '../../src/reference/referencePage.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { seed } from '../support/seedHelpers.ts';

// Runs once (not per database): the page is the same whatever the database.
describe('the reference page at /docs, in headless Chromium', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'acme', 2, 5);
    key = await createApiKey(database.db.kysely, (await findOrCreateTenant(database.db.kysely, 'acme')).id, ['read', 'write']);
    server = await startServer({ ...database.env, LOG_LEVEL: 'warn' });
    chromium = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await chromium?.close();
    await server?.stop();
    await database?.drop();
  });

  it('serves its own Content-Security-Policy and only local assets', async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CSP);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) expect(source, source).not.toMatch(/^(https?:)?\/\//);
  });

  it('lists every endpoint of the OpenAPI document, with the changelog, loading nothing from elsewhere', async () => {
    const doc = (await (await fetch(`${server.url}/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, Record<string, unknown>>;
    };
    // The page lists the webhooks (OpenAPI 3.1) too, each by its event type.
    const expected = [...Object.entries(doc.paths), ...Object.entries(doc.webhooks)]
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();

    const page = await chromium.context.newPage();
    const foreign: string[] = [];
    const failures: string[] = [];
    const cspViolations: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    page.on('requestfailed', (request) => failures.push(`${request.url()} ${request.failure()?.errorText}`));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });

    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    const listed = (
      await page
        .locator('.opblock')
        .evaluateAll((blocks) =>
          blocks.map(
            (b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
          ),
        )
    ).sort();
    expect(listed).toEqual(expected);
    expect(listed.length).toBeGreaterThanOrEqual(15);
    // The changelog is not above the endpoints: the top of the page links to its own page.
    const info = await page.locator('.info').innerText();
    expect(info).toContain('Changelog');
    expect(info).not.toContain('Unreleased');
    await expect(page.locator('.info a', { hasText: 'Changelog' }).getAttribute('href')).resolves.toBe('/docs/changelog');

    mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: 'test-output/docs.png', fullPage: true });
    expect(foreign).toEqual([]);
    expect(failures).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('names the product in its top bar, and its problem table keeps the header words apart', async () => {
    const page = await chromium.context.newPage();
    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    const logo = page.locator('.topbar .topbar-wrapper a.link img');
    await expect.poll(async () => (await logo.getAttribute('src'))?.startsWith('data:image/svg+xml'), { timeout: 20_000 }).toBe(true);
    const svg = Buffer.from(((await logo.getAttribute('src')) ?? '').split(',')[1], 'base64').toString('utf8');
    expect(svg).toContain(`>${PRODUCT_NAME.replace('&', '&amp;')}</text>`);
    expect(svg.toLowerCase()).not.toContain('fastify');
    // Each header's words end at least a few pixels before the next header's begin.
    const header = page.locator('.info table').first().locator('thead th');
    await header.first().waitFor({ timeout: 20_000 });
    const edges = await header.evaluateAll((cells) =>
      cells.map((cell) => {
        const range = cell.ownerDocument.createRange();
        range.selectNodeContents(cell);
        const text = range.getBoundingClientRect();
        return { text: cell.textContent, left: text.left, right: text.right };
      }),
    );
    expect(edges.map((e) => e.text)).toEqual(['name', 'status', 'title', 'when']);
    for (let i = 1; i < edges.length; i++) expect(edges[i].left - edges[i - 1].right, `${edges[i - 1].text} | ${edges[i].text}`).toBeGreaterThanOrEqual(8);
    await page.close();
  });

  it('opens the changelog from the top of the page: every version there, every link working, nothing from elsewhere', async () => {
    const foreign: string[] = [];
    const cspViolations: string[] = [];
    const docs = await chromium.context.newPage();
    await docs.goto(`${server.url}/docs`, { waitUntil: 'load' });
    // Swagger UI opens a description's links in a new tab.
    const link = docs.locator('.info a', { hasText: 'Changelog' });
    await link.waitFor({ timeout: 20_000 });
    const opened = (await link.getAttribute('target')) === '_blank' ? chromium.context.waitForEvent('page') : undefined;
    await link.click();
    const page = (await opened) ?? docs;
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url)) foreign.push(request.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await page.waitForURL(`${server.url}/docs/changelog`);
    await page.waitForLoadState('load');
    await expect(page.locator('h1').innerText()).resolves.toBe('Changelog');
    const versions = await page.locator('h2').allInnerTexts();
    expect(versions[0]).toBe('Unreleased');
    expect(versions.length).toBeGreaterThanOrEqual(3);
    const links = await page.locator('a').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href') ?? ''));
    expect(links.length).toBeGreaterThan(versions.length);
    for (const href of links) {
      if (href.startsWith('#')) await expect(page.locator(`[id="${href.slice(1)}"]`).count(), href).resolves.toBe(1);
      else if (href.startsWith('/')) expect((await fetch(`${server.url}${href}`)).status, href).toBe(200);
      else expect(href, href).toMatch(/^https:\/\/(keepachangelog\.com|semver\.org)\//);
    }
    // A version's link goes to its heading on this page.
    await page.locator('h2 a').nth(1).click();
    expect(new URL(page.url()).hash).toMatch(/^#v\d+\.\d+\.\d+$/);
    expect(foreign).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
    if (page !== docs) await docs.close();
  });

  it('runs a list and a payment creation from "Try it out" with a key filled in, reading 200 and 201', async () => {
    const page = await chromium.context.newPage();
    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    await page.locator('.btn.authorize').first().click();
    await page.locator('.modal-ux input[type=text], .modal-ux input:not([type])').first().fill(key);
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').click();
    await page.locator('.modal-ux .btn-done').click();

    /** Opens an operation, runs it with "Try it out" (after `edit`), and gives the status it shows. */
    const run = async (method: string, path: string, edit?: (block: ReturnType<typeof page.locator>) => Promise<void>) => {
      const block = page
        .locator(`.opblock-${method}`)
        .filter({ has: page.locator(`[data-path="${path}"]`) })
        .first();
      await block.locator('.opblock-summary').first().click();
      await block.locator('.try-out__btn').click();
      if (edit) await edit(block);
      await block.locator('.execute').click();
      const status = block.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor({ timeout: 20_000 });
      return /\d{3}/.exec((await status.textContent()) ?? '')?.[0];
    };

    expect(await run('get', '/v3/accounts')).toBe('200');
    // The example body as it stands, but for the account: one of this tenant's, as the description says.
    const listed = await fetch(`${server.url}/v3/accounts?per_page=1`, { headers: { authorization: `Bearer ${key}` } });
    const account = ((await listed.json()) as { data: Array<{ id: string }> }).data[0].id;
    const created = await run('post', '/v3/payments', async (block) => {
      const body = block.locator('textarea.body-param__text');
      const example = await body.inputValue();
      expect(JSON.parse(example).card.number).toBe('4242 4242 4242 4242');
      await body.fill(example.replace(/acc_[0-9A-Z]{26}/, account));
    });
    expect(created).toBe('201');
    await page.close();
  });
});
