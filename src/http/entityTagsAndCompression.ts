import { hash, webcrypto } from 'node:crypto';
import { constants, type ZlibOptions, type ZstdOptions } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import compress from '@fastify/compress';

/** Responses smaller than this go out as they are: compressing them costs more than it saves. */
export const COMPRESSION_THRESHOLD = 1024;

const tags = new WeakMap<FastifyReply, string>();

/** Bodies from this size on are hashed on libuv's thread pool rather than on the event loop. */
const HASH_OFF_THREAD_FROM = 64 * 1024;

/**
 * The entity tag of a body: its SHA-256, base64url, cut to 27 characters. Web Crypto's digest
 * runs on the thread pool: a 2.6 MB page of 5000 payments took ~2 ms of the event loop to hash
 * in place, time in which no other request (not even /health) moved.
 */
async function entityTag(body: Buffer): Promise<string> {
  if (body.length < HASH_OFF_THREAD_FROM) return hash('sha256', body, 'base64url').slice(0, 27);
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', body))
    .toString('base64url')
    .slice(0, 27);
}

/** Entity tags in an If-None-Match value, compared weakly (RFC 9110 §13.1.2), or `*`. */
function candidateTags(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, ''));
}

function isTagged(request: FastifyRequest, reply: FastifyReply, payload: unknown): payload is string | Buffer {
  return (request.method === 'GET' || request.method === 'HEAD') && reply.statusCode === 200 && (typeof payload === 'string' || Buffer.isBuffer(payload));
}

function appendVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  const names =
    current === undefined
      ? []
      : String(current)
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean);
  if (!names.some((n) => n.toLowerCase() === name)) reply.header('vary', [...names, name].join(', '));
}

/**
 * Strong ETag of the body before compression, and the 304 answer. Runs as a global onSend hook,
 * so before the route-level compression hook. A tag the client holds for an encoded variant
 * ("…-gzip") names the same content: it gets its 304 with that very tag.
 */
const tagBeforeCompression: onSendHookHandler = async (request, reply, payload) => {
  if (!isTagged(request, reply, payload)) return payload;
  // Encoded once here (Node would do it when writing anyway).
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const tag = await entityTag(body);
  // Set before the 304 answer too: a 304 must carry the Cache-Control and Vary the 200 would
  // (RFC 9110 §15.4.5), or a cache that revalidates drops them. Every tagged body may be sent
  // encoded, so it varies by Accept-Encoding even when this one is small enough to go plain.
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache');
  appendVary(reply, 'accept-encoding');
  const held = request.headers['if-none-match'];
  if (held) {
    const match = candidateTags(held).find((t) => t === '*' || t === `"${tag}"` || t.startsWith(`"${tag}-`));
    if (match) {
      reply.code(304).header('etag', match === '*' ? `"${tag}"` : match);
      reply.removeHeader('content-length');
      return null;
    }
  }
  tags.set(reply, tag);
  reply.header('etag', `"${tag}"`);
  return body;
};

/** After compression: the representation sent is the encoded one, so its tag says which. */
const tagAfterCompression: onSendHookHandler = async (_request, reply, payload) => {
  const hash = tags.get(reply);
  const encoding = reply.getHeader('content-encoding');
  if (hash && encoding && encoding !== 'identity') reply.header('etag', `"${hash}-${encoding}"`);
  return payload;
};

/**
 * Compressed output in 64 KiB pieces, not zlib's 16 KiB: an export's compressed stream is written
 * to the socket piece by piece, and four times fewer writes took 10-15 % off a gzip export of 1M
 * payments (CSV 5.9-6.5 s -> 5.0-5.4 s, NDJSON 4.2-4.4 -> 3.8-3.9 s, the server by curl).
 */
const CHUNK_SIZE = 64 * 1024;

/**
 * An export's compressor works in 256 KiB pieces, each one job on the thread pool, so zlib's thread
 * and the event loop overlap; measured faster than the default on a gzip CSV export, while 1 MiB
 * pieces were no faster and held more memory (decision 0008).
 */
const EXPORT_CHUNK_SIZE = 256 * 1024;

/** The plugin's options with compressed pieces of `chunkSize` bytes. */
function compressOptions(chunkSize: number) {
  // The plugin takes one set of options for both: gzip reads `level`, zstd its `params` (it ignores `level`).
  const gzipAndZstd: ZlibOptions & ZstdOptions = { level: 1, params: { [constants.ZSTD_c_compressionLevel]: 1 }, chunkSize };
  return {
    // On a tie the first wins: a client that offers zstd beside br or gzip (as browsers do) gets
    // what it got before zstd was offered; zstd goes to clients that ask for it alone or first.
    encodings: ['br', 'gzip', 'zstd'] as ('br' | 'gzip' | 'zstd')[],
    threshold: COMPRESSION_THRESHOLD,
    // The fastest levels: on a 2.6 MB page of 5000 payments (2 shared cores) brotli 1 took 12 ms
    // for 336 KB where the plugin's default (4) took 40 ms for 284 KB, and gzip 1 18 ms for
    // 370 KB against 35 ms for 308 KB at 6. Pages are CPU-bound here; 7x smaller is plenty.
    // NDJSON of payments, one thread: gzip 1 at 172 MB/s (4.6x smaller), brotli 1 at 286 MB/s
    // (4.7x), zstd 1 at 404 MB/s (5.9x): the cheapest compressed export.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 }, chunkSize },
    zlibOptions: gzipAndZstd,
    // The plugin's own rule, and exports' NDJSON (its rule only knows `…/json` and `…+json`).
    customTypes: /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|\/x-ndjson(?:;|$)/,
  };
}

/**
 * brotli/gzip/zstd by Accept-Encoding, and strong ETags that describe what is actually sent.
 * Must be registered before the routes (all three work through onRoute).
 */
export async function registerRepresentation(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', tagBeforeCompression);
  // Before the plugin's own onRoute hook, which reads a route's `compress` options.
  const exportCompression = compressOptions(EXPORT_CHUNK_SIZE);
  app.addHook('onRoute', (route) => {
    if (route.config?.exportSpec && route.compress === undefined) route.compress = exportCompression;
  });
  await app.register(compress, { ...compressOptions(CHUNK_SIZE), globalDecompression: false });
  // Route-level onSend hooks run after global ones, in the order they were added: this one
  // is added after the compression plugin's, so it sees the Content-Encoding it chose.
  app.addHook('onRoute', (route) => {
    route.onSend = [...(route.onSend ? [route.onSend].flat() : []), tagAfterCompression];
  });
}
