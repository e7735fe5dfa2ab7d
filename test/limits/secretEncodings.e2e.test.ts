import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { sendRaw, type RawResponse } from '../support/rawHttp.ts';
import { cardInText, cardInUrl, keyInUrl, reveals, textsOfLogLine } from '../support/secretSpellings.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { CARDS } from '../support/cards.ts';

/**
 * The issue-12 battery: card numbers and keys spelled every way a client can (percent- and
 * plus-encoded, twice encoded, full-width, with any separators, split by escapes), put in every
 * place a request has (query values and names, path segments, headers, bodies that are refused),
 * sent on the wire as is to the real server at trace level. No reading of any log line may hold
 * one, nor any error answer.
 */
describe('no spelling of a card number or a key reaches a log line or an error answer', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let port: number;
  let key: string;
  let account: string;
  const answers: Array<{ what: string; response: RawResponse }> = [];
  const secrets = [CARDS.visa, CARDS.mastercard, '4392661706050231'];

  beforeAll(async () => {
    database = await createTestDatabase();
    const tenant = await findOrCreateTenant(database.db.kysely, 'spellings');
    key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    server = await startServer({ ...database.env, LOG_LEVEL: 'trace' });
    port = Number(new URL(server.url).port);
    const created = await fetch(`${server.url}/v3/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Spellings', email: 'spell@example.com', currency: 'USD' }),
    });
    account = ((await created.json()) as { data: { id: string } }).data.id;
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  const send = async (what: string, lines: string[], body = '') => {
    const head = [...lines, 'host: 127.0.0.1', `authorization: Bearer ${key}`, 'connection: close'];
    if (body) head.push(`content-length: ${Buffer.byteLength(body)}`);
    // Every one of these closes its connection once answered, so a long idle wait costs nothing
    // but a slow answer on a loaded machine (a search on reference, say) is still waited for.
    const response = await sendRaw(port, `${head.join('\r\n')}\r\n\r\n${body}`, 15_000);
    answers.push({ what, response });
    return response;
  };

  it('holds for every spelling in query values and names, paths, headers and refused bodies, at trace level', { timeout: 120_000 }, async () => {
    for (const digits of secrets) {
      for (const [how, spelled] of Object.entries(cardInUrl(digits))) {
        await send(`card ${how} as a filter value`, [`GET /v3/payments?filter[reference]=${spelled}&page=1 HTTP/1.1`]);
        await send(`card ${how} as a parameter name`, [`GET /v3/payments?${spelled}=1 HTTP/1.1`]);
        await send(`card ${how} in a filter name`, [`GET /v3/accounts?filter[${spelled}]=1 HTTP/1.1`]);
        await send(`card ${how} as a path segment`, [`GET /v3/payments/${spelled} HTTP/1.1`]);
        await send(`card ${how} in an unknown path`, [`GET /v3/${spelled}/x HTTP/1.1`]);
      }
      for (const [how, spelled] of Object.entries(cardInText(digits))) {
        const header = /^[\x20-\x7e]*$/.test(spelled);
        if (header) {
          const id = await send(`card ${how} as X-Request-Id`, ['GET /v3/payments HTTP/1.1', `x-request-id: ${spelled}`]);
          expect(id.headers['x-request-id'], `X-Request-Id ${spelled} is refused`).not.toBe(spelled);
          await send(`card ${how} in a content type`, ['POST /v3/accounts HTTP/1.1', `content-type: application/x-${spelled}`], '{}');
          await send(
            `card ${how} as an Idempotency-Key of a refused body`,
            ['POST /v3/accounts HTTP/1.1', 'content-type: application/json', `idempotency-key: ${spelled}`],
            '{"name":""}',
          );
        }
        const json = JSON.stringify(spelled).slice(1, -1).replace(/\\\\u/g, '\\u');
        await send(
          `card ${how} as an unknown field`,
          ['POST /v3/accounts HTTP/1.1', 'content-type: application/json'],
          `{"name":"A","email":"a@example.com","currency":"USD","${json}":1}`,
        );
        await send(
          `card ${how} in broken JSON`,
          ['POST /v3/payments HTTP/1.1', 'content-type: application/json'],
          `{"account_id":"${account}","card":{"number":"${json}" "cvc":"123"}}`,
        );
        await send(
          `card ${how} as a metadata key`,
          ['POST /v3/accounts HTTP/1.1', 'content-type: application/json'],
          `{"name":"A","email":"a@example.com","currency":"USD","metadata":{"${json}":"x"}}`,
        );
        await send(`card ${how} as a form body`, ['POST /v3/payments HTTP/1.1', 'content-type: application/x-www-form-urlencoded'], `number=${json}`);
      }
    }
    for (const [how, spelled] of Object.entries(keyInUrl(key))) {
      await send(`key ${how} in the query`, [`GET /v3/payments?api_key=${spelled} HTTP/1.1`]);
      await send(`key ${how} as a parameter name`, [`GET /v3/payments?${spelled} HTTP/1.1`]);
      await send(`key ${how} as a path segment`, [`GET /v3/accounts/${spelled} HTTP/1.1`]);
    }
    await send('key as X-Request-Id', ['GET /v3/payments HTTP/1.1', `x-request-id: ${key.slice(0, 64)}`]);
    for (const digits of secrets) {
      answers.push({
        what: 'card in a CONNECT target',
        response: await sendRaw(port, `CONNECT ${digits.match(/.{4}/g)!.join('-')}:443 HTTP/1.1\r\nhost: x\r\n\r\n`),
      });
      answers.push({
        what: 'card in a path without Host',
        response: await sendRaw(port, `GET /v3/payments/${digits.match(/.{4}/g)!.join('%20')} HTTP/1.1\r\n\r\n`),
      });
      answers.push({
        what: 'card in an unknown Expect',
        response: await sendRaw(port, `GET /health?n=${digits} HTTP/1.1\r\nhost: x\r\nexpect: ${digits}\r\n\r\n`),
      });
    }
    await send('key in a malformed request line', [`GET /v3/payments?k=${key} HTTP/1.1`, `x-bad\u0000: ${key}`]);

    for (const { what, response } of answers) {
      expect(response.status, what).toBeDefined();
      if (response.status! < 400) continue;
      for (const secret of [...secrets, key])
        expect(reveals(response.body, secret), `${what}: the ${response.status} answer echoes it: ${response.body.slice(0, 300)}`).toBe(false);
    }
    expect(answers.some((a) => a.response.status === 200)).toBe(true);

    expect(await server.stop()).toBe(0);
    const lines = server.output().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(answers.length);
    expect(lines.some((line) => line.includes('"level":20'))).toBe(true); // debug lines were written, and scrubbed too
    for (const line of lines) {
      for (const text of textsOfLogLine(line)) {
        for (const secret of [...secrets, key]) expect(reveals(text, secret), `logged: ${line.slice(0, 400)}`).toBe(false);
      }
    }
  });
});
