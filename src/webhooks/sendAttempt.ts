import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { isIP } from 'node:net';
import { guardedLookup, isForbiddenAddress, targetHost } from './targetSafety.ts';

/** What one attempt got: a status code (any, redirects included: they are not followed) or an error, and how long it took. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

/** The Standard Webhooks headers: `webhook-signature` carries one `v1,…` per secret that signs (two during a rotation). */
export function signedHeaders(eventId: string, body: string, secrets: string[], at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(eventId, at, body)).join(' '),
  };
}

/** One POST of `body` to `url`, bounded by `timeoutMs` in all (connect, headers, body); the answer's body is read and dropped. */
export function sendAttempt(url: string, body: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean): Promise<AttemptOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const target = new URL(url);
    // An address in the URL is connected to without a lookup: check it here.
    const host = targetHost(target);
    if (!allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host)) {
      resolve({ statusCode: null, error: `${host} is a loopback, private, link-local or metadata address`, latencyMs: 0 });
      return;
    }
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'payments-api-webhooks/3', 'content-length': Buffer.byteLength(body), ...headers },
      lookup: guardedLookup(allowPrivate) as never,
      signal: AbortSignal.timeout(timeoutMs),
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ statusCode: response.statusCode ?? null, error: null, latencyMs: latency() }));
      response.on('error', (err) => resolve({ statusCode: response.statusCode ?? null, error: err.message, latencyMs: latency() }));
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      const error = err.name === 'AbortError' || err.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : err.message;
      resolve({ statusCode: null, error, latencyMs: latency() });
    });
    request.end(body);
  });
}
