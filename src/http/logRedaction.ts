import type { FastifyServerOptions } from 'fastify';

/**
 * Secrets never reach a log line (PCI DSS 3.3–3.5: no PAN or CVC in logs): headers and body
 * fields that carry them are censored wherever they appear in a logged object, and text that
 * is logged as is (the request URL, error messages) is scrubbed of anything shaped like an API
 * key (`apk_…`) or a card number (12–19 digits, spaces or dashes between them allowed): a client
 * that puts one in a query string must not have it written down.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'authorization',
  'body.card',
  'req.body.card',
  '*.card.number',
  '*.card.cvc',
  'card.number',
  'card.cvc',
];

const API_KEY = /apk_[A-Za-z0-9_\-.~+/=%]*/g;
const CARD_NUMBER = /(?<![0-9])[0-9](?:[ \-]?[0-9]){11,18}(?![0-9])/g;

export function scrubSecrets(text: string): string {
  return text.replace(API_KEY, 'apk_[redacted]').replace(CARD_NUMBER, '[redacted-number]');
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
  id?: string;
}

export function loggerOptions(level: string): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: scrubSecrets(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      err: (error: Error & { code?: string; statusCode?: number }) => ({
        type: error.name,
        message: scrubSecrets(String(error.message)),
        stack: scrubSecrets(String(error.stack)),
        ...(error.code ? { code: error.code } : {}),
        ...(error.statusCode ? { statusCode: error.statusCode } : {}),
      }),
    },
  };
}
