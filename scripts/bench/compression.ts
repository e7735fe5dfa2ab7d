import { request } from 'node:http';

/** Bytes on the wire of one response per Accept-Encoding (raw: no client-side decoding). */
export async function encodedSizes(url: string, key: string, encodings = ['identity', 'gzip', 'br']): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const encoding of encodings) {
    sizes[encoding] = await new Promise<number>((resolve, reject) => {
      const req = request(url, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': encoding } }, (response) => {
        if (encoding !== 'identity' && response.headers['content-encoding'] !== encoding) reject(new Error(`${url}: not ${encoding}-encoded`));
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve(bytes));
      });
      req.on('error', reject);
      req.end();
    });
  }
  return sizes;
}
