import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { eventually, startReceiver } from '../support/webhookReceiver.ts';

/** A sender that looks often and retries soon, so the scenarios run in seconds. */
const FAST = { sender: true, allowPrivateTargets: true, pollMs: 20, retryBaseMs: 40, attemptTimeoutMs: 300, giveUpAfterMs: 60_000 };

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

describe('deliveries in order per endpoint, by event time', () => {
  let t: TestContext;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    t = await createTestApp({ webhooks: FAST });
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });

  async function merchantWithEndpoint(name: string) {
    const { key } = await t.tenant(`${name}-${Math.random()}`);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const hook = (await t.send('POST', '/v3/webhook_endpoints', key, { url: receiver.url, enabled_events: ['*'] })).body.data;
    receiver.secrets.push(hook.secret);
    return { key, receiver, hook };
  }
  const newAccount = (key: string, name: string) => t.send('POST', '/v3/accounts', key, { name, email: 'ada@example.com', currency: 'EUR' });
  const eventIds = async (key: string) => (await t.get('/v3/events?per_page=100', key)).body.data.map((e: { id: string }) => e.id);

  it('holds an endpoint’s later events while its first is retried, then sends them all in order; another endpoint is not held up', async () => {
    const down = await merchantWithEndpoint('down');
    const up = await merchantWithEndpoint('up');
    down.receiver.answerWith(() => ({ status: 503 }));
    for (let i = 0; i < 8; i++) {
      await newAccount(down.key, `D${i}`);
      await newAccount(up.key, `U${i}`);
    }
    const downEvents = await eventIds(down.key);
    const upEvents = await eventIds(up.key);
    // The healthy endpoint gets all of its events, in order, while the other one is down.
    await eventually(() => up.receiver.received.length === 8);
    expect(up.receiver.received.map((r) => r.id)).toEqual(upEvents);
    await eventually(() => down.receiver.attempted.length >= 3);
    // Down: only its first event was tried, again and again; the rest wait behind it.
    expect(new Set(down.receiver.attempted)).toEqual(new Set([downEvents[0]]));
    const queued = (await t.get(`/v3/webhook_endpoints/${down.hook.id}/deliveries?per_page=100`, down.key)).body.data;
    expect(queued.filter((d: { attempts: number }) => d.attempts === 0)).toHaveLength(7);
    for (const d of queued.filter((d: { attempts: number }) => d.attempts === 0)) expect(d).toMatchObject({ status: 'pending', next_attempt_at: null });
    // Back up: every event, once, in the order they happened, one request at a time.
    down.receiver.answerWith(() => ({ status: 204 }));
    await eventually(() => down.receiver.received.length === 8);
    await new Promise((r) => setTimeout(r, 200)); // nothing more arrives
    expect(down.receiver.received.map((r) => r.id)).toEqual(downEvents);
    expect(down.receiver.rejected).toEqual([]);
    expect(down.receiver.concurrency.most).toBe(1);
  });

  it('sends one endpoint its events one at a time, even when they come in a burst', async () => {
    const { key, receiver } = await merchantWithEndpoint('burst');
    receiver.answerWith(() => ({ status: 200, delayMs: 15 }));
    await Promise.all(Array.from({ length: 12 }, (_, i) => newAccount(key, `B${i}`)));
    const events = await eventIds(key);
    await eventually(() => receiver.received.length === 12);
    expect(receiver.received.map((r) => r.id)).toEqual(events);
    expect(receiver.concurrency.most).toBe(1);
  });

  it('sends a resend out of band: past a held-up queue, and again in its place once the queue moves', async () => {
    const { key, receiver } = await merchantWithEndpoint('resend');
    await newAccount(key, 'First');
    await eventually(() => receiver.received.length === 1);
    const [first] = await eventIds(key);
    receiver.answerWith((id) => ({ status: id === first ? 204 : 503 }));
    await newAccount(key, 'Second'); // its delivery fails and holds the queue
    await newAccount(key, 'Third');
    const [, second, third] = await eventIds(key);
    await eventually(() => receiver.attempted.includes(second));
    expect((await t.send('POST', `/v3/events/${first}/resend`, key)).status).toBe(202);
    await eventually(() => receiver.received.length === 2);
    expect(receiver.received.map((r) => r.id)).toEqual([first, first]);
    expect(receiver.attempted).not.toContain(third);
    receiver.answerWith(() => ({ status: 204 }));
    await eventually(() => receiver.received.length === 4);
    expect(receiver.received.map((r) => r.id)).toEqual([first, first, second, third]);
  });
});

describe('an endpoint given up on, with events queued behind the failing one', () => {
  it('is disabled, its queued deliveries failed in order with the reason; enabled again, it gets new events', async () => {
    const t = await createTestApp({ webhooks: { ...FAST, giveUpAfterMs: 400 } });
    const receiver = await startReceiver();
    try {
      const { key } = await t.tenant('given-up');
      receiver.answerWith(() => ({ status: 500 }));
      const hook = (await t.send('POST', '/v3/webhook_endpoints', key, { url: receiver.url, enabled_events: ['*'] })).body.data;
      receiver.secrets.push(hook.secret);
      for (const name of ['A', 'B', 'C']) await t.send('POST', '/v3/accounts', key, { name, email: 'a@example.com', currency: 'EUR' });
      await eventually(async () =>
        (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data.every((d: { status: string }) => d.status === 'failed'),
      );
      const [head, ...queued] = (await t.get(`/v3/webhook_endpoints/${hook.id}/deliveries`, key)).body.data;
      expect(head).toMatchObject({ status: 'failed', last_status_code: 500 });
      // Never sent: no attempt counted, nothing measured; last_error says why.
      for (const d of queued)
        expect(d).toMatchObject({ status: 'failed', attempts: 0, last_error: 'endpoint disabled', last_status_code: null, last_latency_ms: null });
      expect(receiver.received.every((r) => r.id === receiver.received[0].id)).toBe(true);
      const endpoint = (await t.get(`/v3/webhook_endpoints/${hook.id}`, key)).body.data;
      expect(endpoint.enabled).toBe(false);
      expect(endpoint.disabled_reason).toMatch(/^Deliveries failed for 400 ms \(\d+ attempts in a row; last: HTTP 500\)$/);
      receiver.answerWith(() => ({ status: 204 }));
      await t.send('PATCH', `/v3/webhook_endpoints/${hook.id}`, key, { enabled: true });
      await t.send('POST', '/v3/accounts', key, { name: 'D', email: 'a@example.com', currency: 'EUR' });
      await eventually(() => receiver.received.length === 1);
      expect(receiver.received[0].body.data).toMatchObject({ name: 'D' });
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
