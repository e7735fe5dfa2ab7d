import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery that does not verify: unsigned, signed with another secret, altered, or too old. */
export class WebhookSignatureError extends Error {
  override name = 'WebhookSignatureError';
}

/** Headers as Node, fetch or a framework give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a delivery as the Standard Webhooks specification says: `webhook-signature` holds
 * `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` entries (one per secret
 * in force), the key being the base64 after `whsec_`; the timestamp must be within
 * `toleranceSeconds` of now (replays of old deliveries fail). Returns the parsed event.
 * `body` must be the raw text received, not a re-serialized object.
 */
export function verifyWebhook<Event = unknown>(body: string, headers: WebhookHeaders, secret: string, toleranceSeconds = 300, now = Date.now()): Event {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookSignatureError('Missing webhook-id, webhook-timestamp or webhook-signature');
  const sentAt = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - sentAt) > toleranceSeconds) throw new WebhookSignatureError('Timestamp outside the tolerance');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookSignatureError('No signature matches this secret');
  return JSON.parse(body) as Event;
}
