import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentsClient, WebhookSignatureError } from '@payments/client';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { eventually, startReceiver } from '../support/webhookReceiver.ts';

const SENDER_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '100', LOG_LEVEL: 'warn' };

describe('webhooks from a running server (`serve`), verified by the client and by standardwebhooks', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let client: PaymentsClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;
  const raw: Array<{ body: string; headers: Record<string, string> }> = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const tenant = await findOrCreateTenant(database.db.kysely, 'hooked');
    const key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    server = await startServer({ ...database.env, ...SENDER_ENV });
    client = new PaymentsClient({ baseUrl: server.url, apiKey: key });
    receiver = await startReceiver();
    const response = await fetch(`${server.url}/v3/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, enabled_events: ['*'] }),
    });
    secret = ((await response.json()) as { data: { secret: string } }).data.secret;
    receiver.secrets.push(secret);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it('delivers what the client then verifies, and walks the same events oldest first', async () => {
    const account = await client.accounts.create({ name: 'Ada', email: 'ada@example.com', currency: 'EUR' });
    await client.accounts.update(account.id, { name: 'Ada L.' });
    await eventually(() => receiver.received.length >= 2);
    const walked = [];
    for await (const event of client.events.list({ filter: { resource_id: account.id }, perPage: 1 })) walked.push(event);
    expect(walked.map((e) => e.type)).toEqual(['account.created', 'account.updated']);
    expect(receiver.received.map((r) => r.id).sort()).toEqual(walked.map((e) => e.id).sort());
    for (const r of receiver.received) raw.push({ body: JSON.stringify(r.body), headers: r.headers });
    for (const { body, headers } of raw) await expect(client.webhooks.verify(body, headers, secret)).resolves.toEqual(JSON.parse(body));
    await expect(client.webhooks.verify(raw[0].body.replace('Ada', 'Eve'), raw[0].headers, secret)).rejects.toThrow(WebhookSignatureError);
    await expect(client.webhooks.verify(raw[0].body, raw[0].headers, 'whsec_c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==')).rejects.toThrow(WebhookSignatureError);
    const anHourAgo = String(Number(raw[0].headers['webhook-timestamp']) - 3600);
    await expect(client.webhooks.verify(raw[0].body, { ...raw[0].headers, 'webhook-timestamp': anHourAgo }, secret)).rejects.toThrow(/tolerance/);
  });

  it('finishes a delivery in flight on SIGTERM, and a restart does not send it again', async () => {
    const before = receiver.received.length;
    let arrived = false;
    receiver.answerWith(() => {
      arrived = true;
      return { status: 200, delayMs: 800 };
    });
    await client.accounts.create({ name: 'Grace', email: 'grace@example.com', currency: 'EUR' });
    await eventually(() => arrived);
    const code = await server.stop();
    expect(code).toBe(0);
    expect(receiver.received.length).toBe(before + 1);
    receiver.answerWith(() => ({ status: 204 }));
    server = await startServer({ ...database.env, ...SENDER_ENV });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received.length).toBe(before + 1);
  });
});
