import { createHmac } from 'node:crypto';

/**
 * Recognises the same card across payments without keeping its number: an HMAC under a
 * server-held key, so the value cannot be reversed or brute-forced from outside.
 */
export function cardFingerprint(secret: string, cardNumber: string): string {
  return createHmac('sha256', secret).update(cardNumber).digest('base64url').slice(0, 22);
}
