import PinoPretty from 'pino-pretty';
import { isIP } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import { scrubSecrets } from '../core/scrubSecrets.ts';

/**
 * Secrets never reach a log line (PCI DSS 3.3–3.5). Two layers: headers and body fields that carry
 * them are censored by path, and every line, just before it is written, is scrubbed whole by
 * `scrubSecrets`. Scrubbing the written line, not chosen fields, is what makes it hold for lines we
 * did not think of.
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

/** `192.168.100.200` or `[::1]:3000`: twelve digits with dots, yet an address, not a card. */
function isAddress(text: string): boolean {
  if (isIP(text)) return true;
  const withPort = /^\[?([^\]]*)\]?:[0-9]{1,5}$/.exec(text);
  return withPort !== null && isIP(withPort[1]) !== 0;
}

/** The value with every text in it scrubbed; `changed` says whether anything was. */
function scrubbed(value: unknown, changed: { any: boolean }): unknown {
  if (typeof value === 'string') {
    const clean = isAddress(value) ? value : scrubSecrets(value);
    if (clean !== value) changed.any = true;
    return clean;
  }
  if (Array.isArray(value)) return value.map((inner) => scrubbed(inner, changed));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [scrubbed(key, changed), scrubbed(inner, changed)]));
  }
  return value;
}

/** A written log line (one JSON object and a newline) with every key and text scrubbed; numbers stay. */
export function scrubLogLine(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return scrubSecrets(line); // not JSON (never from pino): scrub it as text rather than let it through
  }
  const changed = { any: false };
  const clean = scrubbed(parsed, changed);
  return changed.any ? `${JSON.stringify(clean)}\n` : line;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * Pretty, coloured lines for a person at a terminal; JSON lines for everything else (log
 * shippers). `auto` tells them apart by whether stdout is a terminal. Either way the line is
 * scrubbed first (`streamWrite` sees the JSON before pino-pretty does).
 */
export function prettyLogs(format: 'auto' | 'pretty' | 'json' | undefined): boolean {
  return format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
}

export function loggerOptions(level: string, pretty = false): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level,
    ...(pretty ? { stream: PinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }) } : {}),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    hooks: {
      streamWrite: scrubLogLine,
      // Fastify logs "Server listening at …" once per address and has no switch for it; `serve`
      // logs its own one line (database, port, workers, features) instead.
      logMethod(args, method) {
        if (typeof args[0] === 'string' && args[0].startsWith('Server listening at ')) return;
        method.apply(this, args);
      },
    },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: request.url,
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      err: (error: Error & { code?: string; statusCode?: number }) => ({
        type: error.name,
        message: String(error.message),
        stack: String(error.stack),
        ...(error.code ? { code: error.code } : {}),
        ...(error.statusCode ? { statusCode: error.statusCode } : {}),
      }),
    },
  };
}
