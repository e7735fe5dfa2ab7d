import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { malformedRequest, Problem } from '../core/problem.ts';
import { BASELINE_SECURITY_HEADERS } from '../limits/securityHeaders.ts';

/**
 * HTTP that Node answers on its own, answered like everything else: a problem document with the
 * security headers and a request id. Parser errors and timeouts (`clientError`) are written to the
 * socket, then closed; a missing `Host` or an odd `Expect` is let through and refused by an onRequest
 * hook; CONNECT, which Node would close without a word, gets a 405.
 */

/** Node's own test for "100-continue" in an Expect header (lib/_http_server.js), which Node answers itself. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** The methods the API answers, for a 405's Allow. */
const ALLOWED = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

function writeRawProblem(socket: Duplex, problem: Problem): void {
  const body = JSON.stringify(problem.toJSON());
  const headers = { ...BASELINE_SECURITY_HEADERS, ...problem.headers, 'x-request-id': randomUUID() };
  const headerLines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\ncontent-type: application/problem+json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n${headerLines}connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's clientErrorHandler: errors Node's HTTP parser raises before Fastify sees a request. */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: error }, 'client error before a request was read');
  const problem =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new Problem('request-timeout', { detail: 'The request was not received in full in time.' })
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new Problem('header-fields-too-large', { detail: 'The request line and headers are too large.' })
        : malformedRequest('The request is not valid HTTP.');
  writeRawProblem(socket, problem);
}

/** onRequest: what Node no longer refuses on its own (see registerProtocolChecks). */
function checkHostAndExpect(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const expect = request.headers.expect;
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    done(malformedRequest('An HTTP/1.1 request must carry a Host header.'));
  } else if (expect !== undefined && !CONTINUE.test(expect)) {
    done(new Problem('expectation-failed', { detail: 'The only expectation supported is Expect: 100-continue.' }));
  } else {
    done();
  }
}

/**
 * Hands Node's own refusals to Fastify (first among the onRequest hooks: nothing else should run
 * for such a request), and answers CONNECT. The server must be created with
 * `requireHostHeader: false` for requests without Host to get this far.
 */
export function registerProtocolChecks(app: FastifyInstance): void {
  app.addHook('onRequest', checkHostAndExpect);
  app.server.on('checkExpectation', (request: IncomingMessage, response) => app.server.emit('request', request, response));
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    app.log.debug({ req: { method: request.method, url: request.url } }, 'CONNECT refused');
    socket.on('error', () => {});
    writeRawProblem(socket, new Problem('method-not-allowed', { detail: 'CONNECT is not supported: this is not a proxy.', headers: { allow: ALLOWED } }));
  });
}
