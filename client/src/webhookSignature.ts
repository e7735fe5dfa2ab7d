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

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** Equal bytes, compared in time that does not depend on where they differ. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

/**
 * Checks a delivery as the Standard Webhooks specification says: `webhook-signature` holds
 * `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` entries (one per secret
 * in force), the key being the base64 after `whsec_`; the timestamp must be within
 * `toleranceSeconds` of now (replays of old deliveries fail). Resolves to the parsed event.
 * `body` must be the raw text received, not a re-serialized object. Web Crypto only, so it runs
 * in browsers, workers and Node ≥ 20 alike (hence async).
 */
export async function verifyWebhook<Event = unknown>(
  body: string,
  headers: WebhookHeaders,
  secret: string,
  toleranceSeconds = 300,
  now = Date.now(),
): Promise<Event> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookSignatureError('Missing webhook-id, webhook-timestamp or webhook-signature');
  const sentAt = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - sentAt) > toleranceSeconds) throw new WebhookSignatureError('Timestamp outside the tolerance');
  let key: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
  try {
    key = await crypto.subtle.importKey('raw', fromBase64(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  } catch {
    throw new WebhookSignatureError('The secret is not a whsec_ secret');
  }
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    try {
      return sameBytes(fromBase64(signature), expected);
    } catch {
      return false;
    }
  });
  if (!matches) throw new WebhookSignatureError('No signature matches this secret');
  return JSON.parse(body) as Event;
}
