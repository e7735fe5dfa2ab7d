import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appOn, createTestApp, type TestContext } from '../support/testApp.ts';
import { card } from '../support/cards.ts';
import { eventually, startReceiver } from '../support/webhookReceiver.ts';

/** A sender that looks often and retries soon, so the scenarios run in seconds. */
const FAST = { sender: true, allowPrivateTargets: true, pollMs: 20, retryBaseMs: 40, attemptTimeoutMs: 300, giveUpAfterMs: 60_000 };

describe('webhook delivery, verified by a real receiver with the standardwebhooks package', () => {
  let t: TestContext;
  let key: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    t = await createTestApp({ webhooks: FAST });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(async () => {
    key = (await t.tenant(`merchant-${Math.random()}`)).key;
    receiver.received.length = 0;
    receiver.rejected.length = 0;
    receiver.secrets.length = 0;
    receiver.answerWith(() => ({ status: 204 }));
  });

  async function endpoint(body: object = {}) {
    const created = await t.send('POST', '/v3/webhook_endpoints', key, { url: receiver.url, enabled_events: ['*'], ...body });
    expect(created.status).toBe(201);
    receiver.secrets.push(created.body.data.secret);
    return created.body.data;
  }
  const newAccount = (name = 'Ada') => t.send('POST', '/v3/accounts', key, { name, email: 'ada@example.com', currency: 'EUR' });

  it('delivers every event once per change, signed, its body the event as GET /v3/events shows it', async () => {
    await endpoint();
    const account = (await newAccount()).body.data;
    const payment = (await t.send('POST', '/v3/payments', key, { account_id: account.id, amount: 500, currency: 'EUR', card: card(), capture: false })).body
      .data;
    await t.send('POST', `/v3/payments/${payment.id}/capture`, key, {});
    await t.send('POST', `/v3/payments/${payment.id}/refunds`, key, {});
    const events = (await t.get('/v3/events?per_page=100', key)).body.data;
    expect(events).toHaveLength(5);
    await eventually(() => receiver.received.length >= 5);
    await new Promise((r) => setTimeout(r, 100)); // nothing more arrives
    expect(receiver.rejected).toEqual([]);
    expect(receiver.received.map((r) => r.id).sort()).toEqual(events.map((e: { id: string }) => e.id).sort());
    for (const e of events) expect(receiver.received.find((r) => r.id === e.id)?.body).toEqual(e);
  });

  it('lists deliveries with status, attempts, last response code and latency', async () => {
    const hook = await endpoint();
    await newAccount();
    await eventually(() => receiver.received.length === 1);
    await eventually(async () => (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data[0]?.status === 'succeeded');
    const page = (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body;
    expect(page.meta.total).toBe(1);
    expect(page.data[0]).toMatchObject({ endpoint_id: hook.id, event_id: receiver.received[0].id, attempts: 1, last_status_code: 204, next_attempt_at: null });
    expect(page.data[0].last_latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('only sends the types an endpoint asked for', async () => {
    await endpoint({ enabled_events: ['account.updated'] });
    const account = (await newAccount()).body.data;
    await t.send('PATCH', `/v3/accounts/${account.id}`, key, { name: 'B' });
    await eventually(() => receiver.received.length === 1);
    expect(receiver.received[0].type).toBe('account.updated');
  });

  it('retries with backoff while the receiver is down, then delivers', async () => {
    const hook = await endpoint();
    let calls = 0;
    receiver.answerWith(() => ({ status: ++calls <= 3 ? 503 : 200 }));
    await newAccount();
    await eventually(() => receiver.received.length === 1);
    await eventually(async () => (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data[0].status === 'succeeded');
    const delivery = (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data[0];
    expect(delivery.attempts).toBe(4);
    expect((await t.get(`/v3/webhook_endpoints/${hook.id}`, key)).body.data.enabled).toBe(true);
  });

  it('gives up on a slow receiver at the attempt timeout, then delivers when it is quick again', async () => {
    const hook = await endpoint();
    let calls = 0;
    receiver.answerWith(() => (++calls === 1 ? { status: 200, delayMs: 1000 } : { status: 200 }));
    await newAccount();
    await eventually(async () => (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data[0].status === 'succeeded');
    const delivery = (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data[0];
    expect(delivery.attempts).toBe(2);
  });

  it('resends an event on request, with the same webhook-id', async () => {
    await endpoint();
    await newAccount();
    await eventually(() => receiver.received.length === 1);
    const resent = await t.send('POST', `/v3/events/${receiver.received[0].id}/resend`, key);
    expect(resent.status).toBe(202);
    expect(resent.body.data).toHaveLength(1);
    await eventually(() => receiver.received.length === 2);
    expect(receiver.received[1].id).toBe(receiver.received[0].id);
  });

  it('signs with both secrets while a rotation overlaps', async () => {
    const hook = await endpoint();
    const rotated = await t.send('POST', `/v3/webhook_endpoints/${hook.id}/rotate_secret`, key);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(hook.secret);
    receiver.secrets.push(rotated.body.data.secret);
    await newAccount();
    await eventually(() => receiver.received.length === 1);
    expect(receiver.received[0].verifiedWith.sort()).toEqual([hook.secret, rotated.body.data.secret].sort());
  });

  it('two senders on one database deliver each event once', async () => {
    const second = await appOn(t.database, { webhooks: FAST });
    try {
      await endpoint();
      for (let i = 0; i < 20; i++) await newAccount(`A${i}`);
      await eventually(() => receiver.received.length >= 20);
      await new Promise((r) => setTimeout(r, 200));
      expect(receiver.received).toHaveLength(20);
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(20);
    } finally {
      await second.close();
    }
  });
});

describe('an endpoint that keeps failing', () => {
  it('is disabled, saying why, once a delivery has failed for the whole retry window', async () => {
    const t = await createTestApp({ webhooks: { ...FAST, giveUpAfterMs: 400 } });
    const receiver = await startReceiver();
    try {
      const { key } = await t.tenant('failing');
      receiver.answerWith(() => ({ status: 500 }));
      const hook = (await t.send('POST', '/v3/webhook_endpoints', key, { url: receiver.url, enabled_events: ['*'] })).body.data;
      await t.send('POST', '/v3/accounts', key, { name: 'A', email: 'a@example.com', currency: 'EUR' });
      await eventually(async () => (await t.get(`/v3/webhook_endpoints/${hook.id}`, key)).body.data.enabled === false);
      const disabled = (await t.get(`/v3/webhook_endpoints/${hook.id}`, key)).body.data;
      expect(disabled.disabled_reason).toMatch(/failed .*last: HTTP 500/);
      const delivery = (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data[0];
      expect(delivery).toMatchObject({ status: 'failed', last_status_code: 500, next_attempt_at: null });
      expect(delivery.attempts).toBeGreaterThan(1);
      // Enabled again by its owner: the reason goes.
      const enabled = await t.send('PATCH', `/v3/webhook_endpoints/${hook.id}`, key, { enabled: true });
      expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});

describe('a target that turns private after it was accepted (DNS rebinding)', () => {
  it('is checked again at delivery time, on the addresses actually connected to', async () => {
    const t = await createTestApp({ webhooks: { ...FAST, sender: false } });
    const strict = await appOn(t.database, { webhooks: { ...FAST, allowPrivateTargets: false } });
    const receiver = await startReceiver();
    try {
      const { key } = await t.tenant('rebinding');
      const byName = receiver.url.replace('127.0.0.1', 'localhost');
      for (const url of [receiver.url, byName]) {
        const hook = (await t.send('POST', '/v3/webhook_endpoints', key, { url, enabled_events: ['*'] })).body.data;
        await t.send('POST', '/v3/accounts', key, { name: 'A', email: 'a@example.com', currency: 'EUR' });
        await eventually(async () =>
          (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data.some((d: { attempts: number }) => d.attempts > 0),
        );
        const delivery = (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data.find((d: { attempts: number }) => d.attempts > 0);
        expect(delivery).toMatchObject({ status: 'pending', last_status_code: null });
        expect(delivery.last_error).toMatch(/loopback, private, link-local or metadata/);
        await t.send('DELETE', `/v3/webhook_endpoints/${hook.id}`, key);
      }
      expect(receiver.received).toEqual([]);
    } finally {
      await strict.close();
      await t.close();
      await receiver.close();
    }
  });
});
