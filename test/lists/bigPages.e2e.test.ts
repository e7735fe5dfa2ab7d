import { createHash } from 'node:crypto';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../support/seedHelpers.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';

const PAYMENTS = 15_000;

/** GET over a socket; with `stallMs`, the body is not read until that long after the headers came. */
function fetchSlowly(url: string, key: string, encoding: string, stallMs: number): Promise<{ status: number; body: Buffer; encoding?: string; etag?: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': encoding }, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.pause();
      setTimeout(() => {
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks),
            encoding: response.headers['content-encoding'],
            etag: response.headers.etag,
          }),
        );
        response.resume();
      }, stallMs);
    }).on('error', reject);
  });
}

const decoded = ({ body, encoding }: { body: Buffer; encoding?: string }) =>
  (encoding === 'gzip' ? gunzipSync(body) : encoding === 'br' ? brotliDecompressSync(body) : body).toString('utf8');

describe('big pages, many at once', () => {
  let t: TestContext;
  let key: string;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('big-pages')).key;
    await seed(t.database.db, 'big-pages', 5, PAYMENTS);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  // Each big page is written into a buffer that is used again once its response is sent
  // (bodyBufferPool.ts): a client still reading one must get its own page, whole, however many
  // other pages are written meanwhile.
  it('sends each reader exactly its own page, the slow ones too, compressed or not', async () => {
    const urls = [1, 2, 3].map((page) => `${base}/v3/payments?per_page=5000&page=${page}&sort=-amount`);
    const plain = await Promise.all(urls.map((url) => fetchSlowly(url, key, 'identity', 0)));
    const alone = plain.map(decoded);
    for (const body of alone) expect(JSON.parse(body).data).toHaveLength(5000);
    // The tag hashed while the rows were written is the tag of the bytes sent.
    for (const { body, etag } of plain) expect(etag).toBe(`"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`);

    const requests = Array.from({ length: 18 }, (_, i) => ({
      page: i % 3,
      encoding: ['identity', 'gzip', 'br'][Math.floor(i / 3) % 3],
      stallMs: i % 2 === 0 ? 300 : 0,
    }));
    const answers = await Promise.all(requests.map((r) => fetchSlowly(urls[r.page], key, r.encoding, r.stallMs)));
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.encoding ?? 'identity').toBe(requests[i].encoding);
      // Compared as booleans: a mismatch of 1 MB bodies would be printed whole.
      expect(decoded(answer) === alone[requests[i].page], `request ${i} (page ${requests[i].page + 1}, ${requests[i].encoding})`).toBe(true);
    });
  }, 60_000);
});
