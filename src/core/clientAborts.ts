import type { IncomingMessage } from 'node:http';
import { Problem } from './problem.ts';

/**
 * Thrown where a request is found whose connection is already gone (reset right after the client
 * sent it): its address went with it, nobody is there to answer, and nothing should be done.
 */
export class ClientGone extends Error {
  readonly code = 'ECONNRESET';
  constructor() {
    super('the connection was reset before the request was answered');
  }
}

/** Whether the request's connection is gone: a socket closed by now has no peer address any more. */
export function connectionGone(request: IncomingMessage): boolean {
  return request.socket?.remoteAddress === undefined;
}

/** What a stream reports when its connection dropped: Node's `aborted` is ECONNRESET. */
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * The client hung up, reset the connection or was cut off for being too slow (the request
 * timeout) while its request was still arriving: the error is about its connection, not ours to
 * the database, even though both say ECONNRESET. Told apart by where it happened: the request
 * stream is incomplete and its connection is gone.
 */
export function isClientAbort(request: IncomingMessage, error: unknown): boolean {
  if (error instanceof ClientGone) return true;
  if (request.complete || !(request.destroyed || request.socket?.destroyed)) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_CODES.has(code);
}

/** The answer to a request whose client is gone: nobody reads it, but the access log and metrics see a 4xx, not a 5xx. */
export function clientClosedRequest(): Problem {
  return new Problem('client-closed-request', {
    detail: 'The connection closed before the whole request arrived.',
  });
}
