import type { Selectable } from 'kysely';
import type { WebhookSettings } from '../config/loadConfig.ts';
import type { Db } from '../db/database.ts';
import type { WebhookDeliveryTable } from '../db/schema.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { withDeliveryResource } from '../events/deliveryResource.ts';
import { sendAttempt, signedHeaders, type AttemptOutcome } from './sendAttempt.ts';

/** Deliveries claimed at once by one sender. */
const CLAIM_BATCH = 20;
/** A claimed delivery is held this long past the attempt's own timeout; a sender that died mid-attempt frees it by then. */
const LEASE_MARGIN_MS = 30_000;
/** The longest wait between two attempts. */
const MAX_WAIT_MS = 12 * 60 * 60 * 1000;

type Delivery = Selectable<WebhookDeliveryTable>;

/** The wait before attempt `attempts + 1`: exponential from `baseMs`, capped, with ±25 % jitter so failing endpoints do not retry in step. */
export function retryDelayMs(attempts: number, baseMs: number, random = Math.random()): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_WAIT_MS);
  return Math.round(exponential * (0.75 + 0.5 * random));
}

/**
 * Claims due deliveries: their `next_attempt_at` moves past the attempt (a lease) in the claiming
 * transaction. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets every instance and worker claim at
 * once, each a different set; on SQLite a write transaction holds the whole file, so one claim
 * runs at a time. Either way no two senders hold the same delivery.
 */
async function claimDue(db: Db, settings: WebhookSettings, now: Date): Promise<Delivery[]> {
  return inWriteTransaction(db, async ({ trx }) => {
    const due = await trx
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('next_attempt_at', '<=', now.toISOString())
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(CLAIM_BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    const leaseUntil = new Date(now.getTime() + settings.attemptTimeoutMs + LEASE_MARGIN_MS).toISOString();
    await trx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: leaseUntil })
      .where(
        'id',
        'in',
        due.map((d) => d.id),
      )
      .execute();
    return due;
  });
}

/** Records an attempt's outcome: done, retry later, or given up (which disables the endpoint, saying why). */
async function recordOutcome(db: Db, settings: WebhookSettings, delivery: Delivery, outcome: AttemptOutcome, endpointEnabled: boolean) {
  const now = new Date();
  const attempts = delivery.attempts + 1;
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const gaveUp = !ok && (!endpointEnabled || now.getTime() - Date.parse(delivery.created_at) >= settings.giveUpAfterMs);
  const last = outcome.error ?? (outcome.statusCode !== null ? `HTTP ${outcome.statusCode}` : null);
  const row = withDeliveryResource({
    ...delivery,
    status: ok ? 'succeeded' : gaveUp ? 'failed' : 'pending',
    attempts,
    next_attempt_at: ok || gaveUp ? null : new Date(now.getTime() + retryDelayMs(attempts, settings.retryBaseMs)).toISOString(),
    last_status_code: outcome.statusCode,
    last_latency_ms: outcome.latencyMs,
    last_error: ok ? null : last,
    updated_at: now.toISOString(),
  });
  await inWriteTransaction(db, async ({ trx }) => {
    const { id, ...changes } = row;
    await trx.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
    if (!endpointEnabled) return;
    const endpoint = trx.updateTable('webhook_endpoints').where('id', '=', delivery.endpoint_id);
    if (ok) await endpoint.set({ consecutive_failures: 0 }).execute();
    else if (!gaveUp) await endpoint.set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) })).execute();
    else {
      const current = await trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).forUpdate().executeTakeFirst();
      if (!current) return;
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
      const claimed = await claimDue(db, settings, new Date());
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
