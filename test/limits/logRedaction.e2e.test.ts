import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { CARDS } from '../support/cards.ts';
import { scrubSecrets } from '../../src/core/scrubSecrets.ts';

describe('API keys and card numbers never reach a log line, whatever the client does with them', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let writer: string;
  let reader: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    const tenant = await findOrCreateTenant(database.db.kysely, 'logs');
    writer = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    reader = await createApiKey(database.db.kysely, tenant.id, ['read']);
    // trace: every line Fastify and we can write; a small budget so 429s are logged too.
    server = await startServer({ ...database.env, LOG_LEVEL: 'trace', RATE_LIMIT_PER_KEY: '40', RATE_LIMIT_PER_IP: '0' });
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  it('holds after normal use, mistakes and abuse: keys in headers, URLs and bodies; card numbers everywhere', async () => {
    const call = (method: string, path: string, init: { key?: string; body?: string; type?: string; headers?: Record<string, string> } = {}) =>
      fetch(server.url + path, {
        method,
        headers: {
          ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
          ...(init.body !== undefined ? { 'content-type': init.type ?? 'application/json' } : {}),
          ...init.headers,
        },
        body: init.body,
      }).then(async (r) => ({ status: r.status, text: await r.text() }));

    const account = JSON.parse(
      (await call('POST', '/v3/accounts', { key: writer, body: JSON.stringify({ name: 'Logs', email: 'logs@example.com', currency: 'USD' }) })).text,
    );
    const pay = (number: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ account_id: account.data.id, amount: 500, currency: 'USD', card: { number, exp_month: 12, exp_year: 2031, cvc: '123' }, ...extra });
    const answers = [
      await call('POST', '/v3/payments', { key: writer, body: pay(CARDS.visa) }),
      await call('POST', '/v3/payments', { key: writer, body: pay(CARDS.declined), headers: { 'idempotency-key': 'log-1' } }),
      await call('POST', '/v3/payments', { key: writer, body: pay(CARDS.mastercard, { nonsense: true }) }),
      await call('POST', '/v3/payments', { key: writer, body: pay('4242 4242 4242 4241') }),
      await call('POST', '/v3/payments', { key: reader, body: pay(CARDS.amex) }),
      await call('POST', '/v3/payments', { key: writer, body: `{"card":{"number":"${CARDS.visa}"` }),
      await call('POST', '/v3/payments', { key: writer, body: `number=${CARDS.visa}`, type: 'application/x-www-form-urlencoded' }),
      await call('GET', `/v3/payments?api_key=${writer}&card=${CARDS.visa}`),
      await call('GET', `/v3/payments?filter[reference]=${CARDS.mastercard}`, { key: writer }),
      await call('GET', `/v3/payments/${writer}`, { key: writer }),
      await call('GET', `/v3/accounts/${CARDS.visa}`, { key: `${writer}x` }),
      await call('GET', '/v3/payments', { headers: { authorization: `Basic ${writer}`, 'x-request-id': CARDS.visa } }),
      await call('GET', '/v3/payments', { headers: { authorization: writer, 'x-api-key': writer, cookie: `key=${writer}` } }),
    ];
    // Flood one key into 429s.
    for (let i = 0; i < 45; i++) answers.push(await call('GET', '/v3/payments', { key: reader }));
    expect(answers.map((a) => a.status)).toContain(429);
    expect(answers.map((a) => a.status)).toContain(201);
    // A raw, malformed request carrying a key.
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () =>
        socket.write(`GET /v3/payments?k=${writer} HTTP/1.1\r\nauthorization: Bearer ${writer}\r\n\x00\r\n\r\n`),
      );
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });
    // No answer to a payment echoes its card number, valid or not (page links do carry a client's own query).
    for (const answer of answers.slice(0, 7)) {
      for (const number of Object.values(CARDS)) expect(answer.text).not.toContain(number);
    }

    expect(await server.stop()).toBe(0);
    const logs = server.output();
    expect(logs.split('\n').length).toBeGreaterThan(50);
    for (const key of [writer, reader]) {
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(key.slice(4)); // not even without its prefix
    }
    for (const number of [...Object.values(CARDS), '4242 4242 4242 4241']) expect(logs).not.toContain(number);
    expect(logs).toContain('[redacted'); // the scrubbing did run on what the client sent
  });

  it('scrubs keys and card numbers from text, and leaves other numbers alone', () => {
    expect(scrubSecrets(`/v3/payments?k=apk_abc-DEF_123&n=4242 4242 4242 4242&m=4000-0000-0000-0002&page=12`)).toBe(
      '/v3/payments?k=apk_[redacted]&n=[redacted-number]&m=[redacted-number]&page=12',
    );
    expect(scrubSecrets('amount 99999999999 of pay_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe('amount 99999999999 of pay_01ARZ3NDEKTSV4RRFFQ69G5FAV');
  });
});
