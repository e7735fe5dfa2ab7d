import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../core/problem.ts';
import { utf8SequenceLength } from '../core/utf8.ts';

/**
 * JSON bodies are UTF-8 (RFC 8259 §8.1), read from their bytes here instead of by Fastify's
 * string reader, which turned bytes that are not UTF-8 into U+FFFD without a word and ignored a
 * `charset` that said the text was something else (an ISO-8859-1 body was stored garbled).
 *
 * - A `charset` other than UTF-8 is a 415: we do not guess at other encodings.
 * - A byte that is not part of well-formed UTF-8 becomes a lone surrogate (U+DC80–U+DCFF, as
 *   Python's "surrogateescape"): inside a JSON string the text check (invalidText.ts) then
 *   answers a 422 naming the field; anywhere else the JSON is not valid and the answer is a 400.
 *   A lone surrogate character is not a JSON escape, so nothing around it can change its meaning.
 */

const UTF8 = new Set(['utf-8', 'utf8']);

function charsetOf(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
}

function unsupportedCharset(charset: string): Problem {
  return new Problem('unsupported-media-type', {
    detail: `JSON bodies must be UTF-8; charset=${charset} is not accepted.`,
  });
}

/** The body as text, each byte that is not part of well-formed UTF-8 as the lone surrogate U+DC00 + byte. */
function decodeUtf8Marking(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let text = '';
  let run = 0;
  for (let at = 0; at < bytes.length; ) {
    const length = utf8SequenceLength(bytes, at);
    if (length > 0) {
      at += length;
      continue;
    }
    text += bytes.toString('utf8', run, at) + String.fromCharCode(0xdc00 + bytes[at]);
    run = ++at;
  }
  return text + bytes.toString('utf8', run);
}

/** Replaces Fastify's JSON parser: same parsing (`__proto__` refused), from bytes, UTF-8 only. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && !UTF8.has(charset)) return done(unsupportedCharset(charset), undefined);
    // Read exactly as a request without a body, so an Idempotency-Key sees the same request.
    if (body.length === 0 && request.routeOptions.config?.optionalBody) return done(null, undefined);
    parseJson(request, decodeUtf8Marking(body), done);
  });
}
