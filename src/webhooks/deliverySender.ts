import type { WebhookSettings } from '../config/loadConfig.ts';
import type { Db } from '../db/database.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { withDeliveryResource } from '../events/deliveryResource.ts';
import { claimDue, promoteNext, type Delivery } from './deliveryQueue.ts';
import { sendAttempt, signedHeaders, type AttemptOutcome } from './sendAttempt.ts';

/** A claimed delivery is held this long past the attempt's own timeout; a sender that died mid-attempt frees it by then. */
const LEASE_MARGIN_MS = 30_000;
/** The longest wait between two attempts. */
const MAX_WAIT_MS = 12 * 60 * 60 * 1000;

/** The wait before attempt `attempts + 1`: exponential from `baseMs`, capped, with ±25 % jitter so failing endpoints do not retry in step. */
export function retryDelayMs(attempts: number, baseMs: number, random = Math.random()): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_WAIT_MS);
  return Math.round(exponential * (0.75 + 0.5 * random));
}

/**
 * Records an attempt's outcome: done, retry later, or given up (which disables the endpoint,
 * saying why). A delivery's retry window starts at its first attempt, not when it was queued
 * behind earlier events. Once an in-order delivery is done (either way) the endpoint's next
 * event becomes its head, in this transaction, with the endpoint's row locked first.
 */
async function recordOutcome(db: Db, settings: WebhookSettings, delivery: Delivery, outcome: AttemptOutcome, endpointEnabled: boolean) {
  const now = new Date();
  const attempts = delivery.attempts + 1;
  const firstAttemptAt = delivery.first_attempt_at ?? (delivery.attempts > 0 ? delivery.created_at : now.toISOString());
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const gaveUp = !ok && (!endpointEnabled || now.getTime() - Date.parse(firstAttemptAt) >= settings.giveUpAfterMs);
  const last = outcome.error ?? (outcome.statusCode !== null ? `HTTP ${outcome.statusCode}` : null);
  const row = withDeliveryResource({
    ...delivery,
    status: ok ? 'succeeded' : gaveUp ? 'failed' : 'pending',
    attempts,
    first_attempt_at: firstAttemptAt,
    next_attempt_at: ok || gaveUp ? null : new Date(now.getTime() + retryDelayMs(attempts, settings.retryBaseMs)).toISOString(),
    last_status_code: outcome.statusCode,
    last_latency_ms: outcome.latencyMs,
    last_error: ok ? null : last,
    updated_at: now.toISOString(),
  });
  await inWriteTransaction(db, async ({ trx }) => {
    // NO KEY UPDATE: it serializes promotions of one endpoint without waiting for writes that are
    // inserting its deliveries (their foreign key check only takes KEY SHARE).
    const current = await trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).forNoKeyUpdate().executeTakeFirst();
    if (!current) return; // deleted meanwhile (the delivery went with it)
    const { id, ...changes } = row;
    await trx.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
    if (delivery.in_order === 1 && row.status !== 'pending') await promoteNext(trx, delivery.endpoint_id, now.toISOString());
    if (!endpointEnabled) return;
    const endpoint = trx.updateTable('webhook_endpoints').where('id', '=', delivery.endpoint_id);
    if (ok) {
      if (current.consecutive_failures !== 0) await endpoint.set({ consecutive_failures: 0 }).execute();
    } else if (!gaveUp) await endpoint.set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) })).execute();
    else {
      const reason = `Deliveries failed for ${Math.round(settings.giveUpAfterMs / 3_600_000)} h (${current.consecutive_failures + 1} attempts in a row; last: ${last})`;
      const resource = JSON.parse(current.resource) as Record<string, unknown>;
      Object.assign(resource, { enabled: false, disabled_reason: reason, updated_at: now.toISOString() });
      await endpoint
        .set({
          enabled: 0,
          disabled_reason: reason,
          consecutive_failures: current.consecutive_failures + 1,
          updated_at: now.toISOString(),
          resource: JSON.stringify(resource),
        })
        .execute();
    }
  });
}

/** One delivery: sign the event with every secret in force and POST it, then record what happened. */
async function deliver(db: Db, settings: WebhookSettings, delivery: Delivery): Promise<void> {
  const [endpoint, event] = await Promise.all([
    db.kysely.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).executeTakeFirst(),
    db.kysely.selectFrom('events').select(['id', 'resource']).where('id', '=', delivery.event_id).executeTakeFirst(),
  ]);
  if (!endpoint || !event) return; // deleted meanwhile (the delivery went with it)
  if (endpoint.enabled !== 1) {
    await recordOutcome(db, settings, delivery, { statusCode: null, error: 'endpoint disabled', latencyMs: 0 }, false);
    return;
  }
  const now = new Date();
  const secrets = [endpoint.secret];
  if (endpoint.previous_secret && endpoint.previous_secret_until && Date.parse(endpoint.previous_secret_until) > now.getTime())
    secrets.push(endpoint.previous_secret);
  const outcome = await sendAttempt(
    endpoint.url,
    event.resource,
    signedHeaders(event.id, event.resource, secrets, now),
    settings.attemptTimeoutMs,
    settings.allowPrivateTargets,
  );
  await recordOutcome(db, settings, delivery, outcome, true);
}

export interface DeliverySender {
  /** Claims and sends everything due now; resolves when those attempts are recorded. */
  runOnce(): Promise<number>;
  /** Stops claiming and waits for the attempts in flight (each bounded by its timeout). */
  stop(): Promise<void>;
}

/**
 * The sender: every `pollMs` it claims due deliveries and sends them, until stopped. A delivery
 * whose attempt was cut short (SIGKILL, a crash) is claimed again when its lease ends: at least
 * once; the receiver drops a repeat by its `webhook-id`.
 */
export function startDeliverySender(db: Db, settings: WebhookSettings, onError: (err: unknown) => void): DeliverySender {
  let stopped = false;
  let running: Promise<number> | undefined;
  const runOnce = async () => {
    let sent = 0;
    for (;;) {
      if (stopped) return sent;
      const claimed = await claimDue(db, new Date(), settings.attemptTimeoutMs + LEASE_MARGIN_MS);
      if (claimed.length === 0) return sent;
      await Promise.all(claimed.map((d) => deliver(db, settings, d).catch(onError)));
      sent += claimed.length;
    }
  };
  const tick = () => {
    if (running || stopped) return;
    running = runOnce()
      .catch((err) => {
        onError(err);
        return 0;
      })
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, settings.pollMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
