import { createHmac } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';

/**
 * Identifies "the same request" for an idempotency key: method, path and body with keys in
 * canonical order. Keyed (HMAC) because a payment body holds a card number, and a plain hash
 * of a body with a known shape could be brute-forced back to it.
 */
export function requestFingerprint(secret: string, method: string, path: string, body: unknown): string {
  return createHmac('sha256', secret)
    .update(`${method} ${path}\n${stableStringify(body ?? null)}`)
    .digest('hex');
}
