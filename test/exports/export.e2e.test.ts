import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { card } from '../support/cards.ts';

const PAYMENTS = 1200;

describe('exports: every record of a list in one response', () => {
  let t: TestContext;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('exporter')).key;
    await seed(t.database.db, 'exporter', 4, PAYMENTS);
    accountId = (await t.get('/v3/accounts?per_page=1', key)).body.data[0].id;
  });
  afterAll(async () => {
    await t.close();
  });

  const exportOf = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}`, ...headers } });

  /** The list's own rows, every page of it (at most 5000 a page), as stored text. */
  async function listed(url: string): Promise<unknown[]> {
    const sep = url.includes('?') ? '&' : '?';
    const first = await t.get(`${url}${sep}per_page=5000`, key);
    expect(first.status).toBe(200);
    return first.body.data;
  }

  it.each([
    '/v3/payments',
    '/v3/payments?filter[status]=succeeded,refunded&sort=-amount',
    '/v3/payments?filter[amount][gte]=5000&filter[currency]=USD,EUR&sort=amount,-created_at',
    // A metadata search's total counted from its entries, alone and beside another filter (metadataPlanStatement.ts).
    '/v3/payments?filter[metadata][channel]=web',
    '/v3/payments?filter[metadata][channel]=web,pos&filter[status]=succeeded&sort=-amount',
    '/v3/accounts',
    '/v3/accounts?sort=-created_at',
  ])('sends as NDJSON exactly the records %s lists, in its order, then a closing line with the count', async (list) => {
    const [path, query] = list.split('?');
    const response = await exportOf(`${path}/export${query ? `?${query}` : ''}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = response.body.split('\n');
    expect(lines.pop()).toBe('');
    const closing = JSON.parse(lines.pop() as string);
    const expected = await listed(list);
    expect(lines.map((l) => JSON.parse(l))).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    expect(closing).toEqual({ export: { complete: true, count: expected.length } });
    expect(Number(response.headers['x-total-count'])).toBe(expected.length);
    expect(Date.parse(String(response.headers['x-export-snapshot']))).not.toBeNaN();
  });

  it('exports the payments of one account, and answers 404 for an unknown one', async () => {
    const response = await exportOf(`/v3/accounts/${accountId}/payments/export?sort=-amount`);
    expect(response.statusCode).toBe(200);
    const records = response.body
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    expect(records).toEqual(await listed(`/v3/accounts/${accountId}/payments?sort=-amount`));
    expect(records.length).toBeGreaterThan(0);
    expect((await exportOf('/v3/accounts/acc_00000000000000000000000000/payments/export')).statusCode).toBe(404);
  });

  it('sends each record as the very bytes the list sends: quotes, backslashes and any script survive', async () => {
    for (const name of ['O\'Brien "the" \\ back\\slash', 'Zoë 東京 😀 \u2028 tab\there', "E'x' $1 $$ a,b;c"]) {
      const created = await t.send('POST', '/v3/accounts', key, { name, email: 'awkward@example.com', currency: 'EUR' });
      expect(created.status).toBe(201);
    }
    const response = await exportOf('/v3/accounts/export?filter[currency]=EUR&sort=-created_at');
    const exported = response.rawPayload.toString('utf8').split('\n').slice(0, -2);
    // The list writes each record's stored text into its envelope as it is (envelopeBody.ts).
    const stored = await t.database.db.kysely
      .selectFrom('accounts')
      .innerJoin('tenants', 'tenants.id', 'accounts.tenant_id')
      .select('accounts.resource')
      .where('tenants.name', '=', 'exporter')
      .where('accounts.currency', '=', 'EUR')
      .orderBy('accounts.created_at', 'desc')
      .orderBy('accounts.id', 'desc')
      .execute();
    expect(exported).toEqual(stored.map((row) => row.resource));
    expect(exported.filter((line) => line.includes("O'Brien"))).toHaveLength(1);
  });

  it('refuses what the list refuses with the same 422, and refuses paging', async () => {
    for (const query of ['filter[status]=nope', 'sort=name', 'filter[created_at][gte]=2026-02-30', 'filter[colour]=red']) {
      const exported = await exportOf(`/v3/payments/export?${query}`);
      const listedAnswer = await t.get(`/v3/payments?${query}`, key);
      expect(exported.statusCode).toBe(422);
      expect(exported.json()).toEqual(listedAnswer.body);
    }
    const paged = await exportOf('/v3/payments/export?per_page=10');
    expect(paged.statusCode).toBe(422);
    expect(Object.keys(paged.json().errors)).toEqual(['per_page']);
  });

  it('answers 406 to an Accept it cannot meet, and picks CSV or NDJSON by Accept', async () => {
    const refused = await exportOf('/v3/payments/export', { accept: 'application/json' });
    expect(refused.statusCode).toBe(406);
    expect(refused.json().type).toMatch(/not-acceptable$/);
    expect((await exportOf('/v3/payments/export', { accept: 'text/csv;q=0.9, application/x-ndjson;q=0.5' })).headers['content-type']).toMatch(/^text\/csv/);
    expect((await exportOf('/v3/payments/export', { accept: '*/*' })).headers['content-type']).toMatch(/^application\/x-ndjson/);
  });

  it('sends CSV with a header row, one flat row per record, and the count in a trailer', async () => {
    const response = await exportOf('/v3/payments/export?sort=amount', { accept: 'text/csv' });
    expect(response.statusCode).toBe(200);
    const rows = response.body.split('\r\n');
    expect(rows.pop()).toBe('');
    const header = (rows.shift() as string).split(',');
    expect(header.slice(0, 5)).toEqual(['id', 'account_id', 'amount', 'currency', 'status']);
    expect(header).toContain('card.brand');
    const expected = (await listed('/v3/payments?sort=amount')) as Array<{ id: string; amount: number; card: { brand: string } }>;
    expect(rows).toHaveLength(expected.length);
    expect(response.trailers['x-export-count']).toBe(String(expected.length));
    const first = rows[0].split(',');
    expect(first[header.indexOf('id')]).toBe(expected[0].id);
    expect(Number(first[header.indexOf('amount')])).toBe(expected[0].amount);
    expect(first[header.indexOf('card.brand')]).toBe(expected[0].card.brand);
  });

  it('quotes CSV cells as RFC 4180 says, and defuses cells a spreadsheet would run as formulas', async () => {
    const other = await t.tenant('csv-escapes');
    const names = ['=HYPERLINK("http://x","y")', '+1', '-2', '@SUM(A1)', 'a, "quoted"\nname', 'plain'];
    for (const name of names) {
      const created = await t.send('POST', '/v3/accounts', other.key, { name, email: 'a@example.com', currency: 'USD' });
      expect(created.status).toBe(201);
    }
    const response = await t.app.inject({
      method: 'GET',
      url: '/v3/accounts/export?sort=created_at',
      headers: { authorization: `Bearer ${other.key}`, accept: 'text/csv' },
    });
    const header = response.body.slice(0, response.body.indexOf('\r\n')).split(',');
    const nameColumn = header.indexOf('name');
    const cells = parseCsv(response.body)
      .slice(1)
      .map((row) => row[nameColumn]);
    expect(cells).toEqual(['\'=HYPERLINK("http://x","y")', "'+1", "'-2", "'@SUM(A1)", 'a, "quoted"\nname', 'plain']);
    expect(response.body).toContain('"\'=HYPERLINK(""http://x"",""y"")"');
  });

  it('compresses with gzip, zstd or brotli when asked, NDJSON and CSV, to the same bytes', async () => {
    const decode = { gzip: gunzipSync, zstd: zstdDecompressSync, br: brotliDecompressSync };
    for (const accept of ['application/x-ndjson', 'text/csv']) {
      const plain = await exportOf('/v3/payments/export', { accept });
      for (const [encoding, decoded] of Object.entries(decode)) {
        const response = await exportOf('/v3/payments/export', { accept, 'accept-encoding': encoding });
        expect(response.headers['content-encoding']).toBe(encoding);
        expect(decoded(response.rawPayload).toString()).toBe(plain.body);
      }
    }
  });
});

describe('exports over a real connection: one snapshot, a bound per key, a client that leaves', () => {
  let t: TestContext;
  let key: string;
  let accountId: string;
  let base: string;

  beforeAll(async () => {
    // One export per key, on a port: fetch reads the body as it arrives, and can leave midway.
    t = await createTestApp({ limits: { exportsPerKey: 1 } });
    key = (await t.tenant('streamer')).key;
    await seed(t.database.db, 'streamer', 2, 20_000);
    accountId = (await t.get('/v3/accounts?per_page=1', key)).body.data[0].id;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    // fetch keeps its connections alive; close them so the server can stop.
    t.app.server.closeAllConnections();
    await t.close();
  });

  const start = (url: string, signal?: AbortSignal) => fetch(`${base}${url}`, { headers: { authorization: `Bearer ${key}` }, signal });

  it('does not see writes made while it runs', async () => {
    const response = await start('/v3/payments/export');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    // Newer than every seeded payment: by created_at they would come last, not yet sent.
    const added: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await t.send(
        'POST',
        '/v3/payments',
        key,
        { account_id: accountId, amount: 1234, currency: 'USD', card: card() },
        { 'idempotency-key': `snapshot-${i}` },
      );
      expect(created.status).toBe(201);
      added.push(created.body.data.id);
    }
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const lines = text.trim().split('\n');
    const closing = JSON.parse(lines.pop() as string);
    expect(Number(response.headers.get('x-total-count'))).toBe(20_000);
    expect(closing.export.count).toBe(20_000);
    expect(lines).toHaveLength(20_000);
    const ids = new Set(lines.map((l) => JSON.parse(l).id));
    for (const id of added) expect(ids.has(id)).toBe(false);
    expect((await t.get('/v3/payments?per_page=1', key)).body.meta.total).toBe(20_003);
  }, 60_000);

  it('refuses a second export of the same key with 429, and frees the slot and the connection when the client leaves', async () => {
    const idleBefore = t.database.db.poolStats();
    const leaving = new AbortController();
    const first = await start('/v3/payments/export', leaving.signal);
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const second = await start('/v3/accounts/export');
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).not.toBeNull();
    leaving.abort();
    await reader.cancel().catch(() => {});
    // The slot comes back as soon as the server notices the connection closed.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      const again = await start('/v3/accounts/export');
      status = again.status;
      await again.text();
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    const after = t.database.db.poolStats();
    expect(after.total - after.idle).toBeLessThanOrEqual(idleBefore.total - idleBefore.idle);
  }, 60_000);
});

/** A small RFC 4180 reader for the test: quoted cells, doubled quotes, CRLF row ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (quoted && c === '"') quoted = false;
    else if (quoted || (c !== '"' && c !== ',' && c !== '\r')) cell += c;
    else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++; // the \n of CRLF
    }
  }
  return rows;
}
