import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createParallelGzip } from '../../src/http/parallelGzip.ts';

async function gzipInChunks(data: Buffer, cuts: number[], options?: { level?: number; parallel?: number }) {
  const chunks: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, data.length]) {
    chunks.push(data.subarray(from, cut));
    from = cut;
  }
  return buffer(Readable.from(chunks.filter((c) => c.length > 0)).pipe(createParallelGzip(options)));
}

/** Text that compresses like an export's (repeated keys), up to a few blocks long. */
const exportLike = fc
  .array(fc.record({ id: fc.string(), amount: fc.integer(), note: fc.string({ unit: 'binary' }) }), { maxLength: 4000 })
  .map((records) => Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join('')));

describe('a parallel gzip stream', () => {
  it('decodes to exactly what was written, however the writes are cut and however many threads deflate', async () => {
    await fc.assert(
      fc.asyncProperty(
        exportLike,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(1, 6, 9),
        async (data, cutsAt, parallel, level) => {
          const cuts = [...new Set(cutsAt.map((n) => n % (data.length + 1)))].sort((a, b) => a - b);
          const gzipped = await gzipInChunks(data, cuts, { parallel, level });
          expect(gunzipSync(gzipped).equals(data)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('spans many blocks with matches across their cuts, as small as one stream would make it', async () => {
    const line = Buffer.from('{"id":"pay_01J","status":"succeeded","card":{"brand":"visa","last4":"4242"}}\n');
    const data = Buffer.concat(Array.from({ length: 40_000 }, () => line)); // ~3 MB: a dozen blocks
    const gzipped = await gzipInChunks(data, [1, 70_000, 300_001], { level: 1 });
    expect(gunzipSync(gzipped).equals(data)).toBe(true);
    // Each block starts with the last one's window: repeats across a cut still compress.
    expect(gzipped.length).toBeLessThan(data.length / 100);
  });

  it('is a valid empty gzip member when nothing is written', async () => {
    const gzipped = await gzipInChunks(Buffer.alloc(0), []);
    expect(gzipped.subarray(0, 3)).toEqual(Buffer.from([0x1f, 0x8b, 8]));
    expect(gunzipSync(gzipped).length).toBe(0);
  });
});
