import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { sendRaw, type RawResponse } from '../support/rawHttp.ts';

const SECURITY = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

/**
 * What Node answers on its own — a request without Host, an unknown Expect, CONNECT, bytes that
 * are not HTTP, headers too large — gets a problem document with the security headers and a
 * request id like every other answer. Raw bytes on a real port: no client library tidies them.
 */
describe('answers Node would give bare are problem documents too', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    database = await createTestDatabase();
    app = await appOn(database);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await database.drop();
  });

  const expectProblem = (response: RawResponse, status: number) => {
    expect(response.status, response.text.slice(0, 300)).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers).toMatchObject(SECURITY);
    expect(response.headers['x-request-id']).toMatch(/\S/);
    const problem = JSON.parse(response.body);
    expect(problem).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
    return problem;
  };

  it.each([
    ['an HTTP/1.1 request without Host', 400, 'GET /health HTTP/1.1\r\n\r\n', /Host/],
    ['a POST without Host', 400, 'POST /v3/accounts HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}', /Host/],
    ['Expect: bogus', 417, 'GET /health HTTP/1.1\r\nhost: x\r\nexpect: bogus\r\n\r\n', /100-continue/],
    ['Expect: 200-ok on an unknown path', 417, 'GET /nope HTTP/1.1\r\nhost: x\r\nexpect: 200-ok\r\n\r\n', /100-continue/],
    ['CONNECT', 405, 'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n', /CONNECT/],
    ['bytes that are not HTTP', 400, 'HELLO THERE\r\n\r\n', /not valid HTTP/],
    ['a header with a NUL in it', 400, 'GET /health HTTP/1.1\r\nhost: x\r\nx-bad: a\u0000b\r\n\r\n', /not valid HTTP/],
    ['headers larger than 16 KiB', 431, `GET /health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, /too large/],
  ])('%s is a %i problem', async (_, status, request, detail) => {
    const problem = expectProblem(await sendRaw(port, request), status);
    expect(problem.detail).toMatch(detail);
  });

  it('CONNECT is answered with what is allowed', async () => {
    const response = await sendRaw(port, 'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n');
    expect(response.headers.allow).toMatch(/GET/);
  });

  it('still serves HTTP/1.0 without Host, Expect: 100-continue, and the server goes on', async () => {
    expect((await sendRaw(port, 'GET /health HTTP/1.0\r\n\r\n')).status).toBe(200);
    const continued = await sendRaw(port, 'GET /health HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\nconnection: close\r\n\r\n');
    expect(continued.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });
});
