import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../core/problem.ts';
import { utf8SequenceLength } from '../core/utf8.ts';

/**
 * JSON bodies are UTF-8 (RFC 8259 §8.1), read from their bytes here: Fastify's reader turned bad
 * bytes into U+FFFD silently and ignored `charset`. Another `charset` is a 415. A byte that is not
 * well-formed UTF-8 becomes a lone surrogate (as "surrogateescape"): in a string invalidText.ts then
 * answers a 422 naming the field, elsewhere the JSON is invalid and the answer is a 400.
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
