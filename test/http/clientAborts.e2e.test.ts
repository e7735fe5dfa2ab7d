import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { loggerOptions } from '../../src/http/logRedaction.ts';

/**
 * A client hanging up is the client's doing: it must never look like the database failing
 * (503, `db_unavailable_errors_total`, a warning), or anyone with a key could raise false
 * database alerts at will (issue 12). Real sockets, a real port.
 */
describe('clients that hang up, stall or reset are counted as such, never as the database', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  let key: string;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const tenant = await findOrCreateTenant(database.db.kysely, 'aborts');
    key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    app = await appOn(database, { logger: { ...loggerOptions('debug'), stream }, limits: { requestTimeoutMs: 400 } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await database.drop();
  });

  const metric = async (name: string) => {
    const text = (await app.inject({ url: '/metrics' })).body;
    return Number(new RegExp(`^${name} ([0-9.]+)$`, 'm').exec(text)?.[1] ?? NaN);
  };

  /** Opens a connection and sends the head of a POST promising 100 bytes, and `sent` of them. */
  const halfBody = (sent: string) =>
    new Promise<Socket>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /v3/accounts HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n${sent}`,
        );
        resolve(socket);
      });
      socket.on('error', () => {});
      socket.resume(); // read what the server answers, so its closing is seen
    });

  const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.closed ? resolve() : socket.on('close', () => resolve())));

  it('half a body then a hang-up, half a body then a reset, and half a body then silence until the timeout', async () => {
    const before = { aborts: await metric('http_client_aborts_total'), unavailable: await metric('db_unavailable_errors_total') };
    expect(before).toEqual({ aborts: 0, unavailable: 0 });

    const hangUp = await halfBody('{"name":"Half');
    await sleep(150); // the server has authenticated the request and is reading its body
    hangUp.end();
    hangUp.destroy();
    const reset = await halfBody('{"name":"Re');
    await sleep(150);
    reset.resetAndDestroy();
    const stalled = await halfBody('{"na');
    await closed(stalled); // the server gives up after REQUEST_TIMEOUT_MS (408) and closes
    await sleep(200);

    expect(await metric('db_unavailable_errors_total')).toBe(0);
    expect(await metric('http_client_aborts_total')).toBe(3);
    const warnings = lines.filter((l) => (l.level as number) >= 40);
    expect(warnings, JSON.stringify(warnings)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'client went away before the request was complete' && l.level === 20)).toHaveLength(3);
    // Nothing was created from half a body, and the server goes on.
    expect(await database.db.kysely.selectFrom('accounts').select('id').execute()).toEqual([]);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });
});

describe('a client that resets the connection right after sending its request (SO_LINGER 0)', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  let key: string;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const tenant = await findOrCreateTenant(database.db.kysely, 'resets');
    key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    // The per-address budget on, as in production: its key is the address of a socket now gone.
    app = await appOn(database, { logger: { ...loggerOptions('debug'), stream }, limits: { rateLimitPerIp: 100_000, rateLimitPerKey: 100_000 } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await database.drop();
  });

  const sendThenReset = (head: string) =>
    new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(head, () => {
          socket.resetAndDestroy();
          resolve();
        });
      });
      socket.on('error', () => {});
    });

  it('is counted as a client abort and logged at debug, never as an error with a stack', async () => {
    const aborts = async () => Number(/^http_client_aborts_total ([0-9.]+)$/m.exec((await app.inject({ url: '/metrics' })).body)?.[1] ?? NaN);
    const before = await aborts();
    const resets = 20;
    for (let i = 0; i < resets; i++) {
      await sendThenReset(
        i % 2 === 0
          ? `GET /v3/accounts HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\n\r\n`
          : `POST /v3/accounts HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`,
      );
    }
    await sleep(300);

    const errors = lines.filter((l) => (l.level as number) >= 40);
    expect(errors, JSON.stringify(errors.slice(0, 2))).toEqual([]);
    // Some resets land after the request was answered (nothing to count); every one that did not is counted.
    const counted = (await aborts()) - before;
    expect(counted).toBeGreaterThan(0);
    expect(lines.filter((l) => l.level === 20 && l.msg === 'client went away before its request was answered')).toHaveLength(counted);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });
});
