import type { WebhookSettings } from '../config/loadConfig.ts';
import type { Db } from '../db/database.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { withDeliveryResource } from '../events/deliveryResource.ts';
import { DatabasePause, type SenderLog } from './databasePause.ts';
import { claimDue, deliveryChanges, promoteNext, tenantWork, webhookTenantsQuery, type Delivery } from './deliveryQueue.ts';
import { sendAttempt, signedHeaders, type AttemptOutcome } from './sendAttempt.ts';
import { durationText } from './durationText.ts';

/** Deliveries one sender has in flight at most (each endpoint's one at a time). */
const MAX_IN_FLIGHT = 20;
/** A claimed delivery is held this long past the attempt's own timeout; a sender that died mid-attempt frees it by then. */
const LEASE_MARGIN_MS = 30_000;
/** Tenants read from `tenants` per statement of a sweep. */
const TENANT_PAGE = 500;
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
 * event becomes its head, in this transaction, with the endpoint's row locked first; with
 * `chain`, this sender claims it at once and gets it back to send next (no poll in between).
 */
async function recordOutcome(
  db: Db,
  settings: WebhookSettings,
  delivery: Delivery,
  outcome: AttemptOutcome,
  endpointEnabled: boolean,
  chain: boolean,
): Promise<Delivery | undefined> {
  const now = new Date();
  // A delivery to a disabled endpoint is not sent: `attempts` counts only requests made.
  const sent = endpointEnabled;
  const attempts = delivery.attempts + (sent ? 1 : 0);
  const firstAttemptAt = delivery.first_attempt_at ?? (delivery.attempts > 0 ? delivery.created_at : now.toISOString());
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const gaveUp = !ok && (!endpointEnabled || now.getTime() - Date.parse(firstAttemptAt) >= settings.giveUpAfterMs);
  const last = outcome.error ?? (outcome.statusCode !== null ? `HTTP ${outcome.statusCode}` : null);
  const row = withDeliveryResource({
    ...delivery,
    status: ok ? 'succeeded' : gaveUp ? 'failed' : 'pending',
    attempts,
    first_attempt_at: sent ? firstAttemptAt : delivery.first_attempt_at,
    next_attempt_at: ok || gaveUp ? null : new Date(now.getTime() + retryDelayMs(attempts, settings.retryBaseMs)).toISOString(),
    last_status_code: sent ? outcome.statusCode : delivery.last_status_code,
    last_latency_ms: sent ? outcome.latencyMs : delivery.last_latency_ms,
    last_error: ok ? null : last,
    updated_at: now.toISOString(),
  });
  const leaseUntil = chain ? new Date(now.getTime() + settings.attemptTimeoutMs + LEASE_MARGIN_MS).toISOString() : undefined;
  return inWriteTransaction(db, async ({ trx }) => {
    // NO KEY UPDATE: it serializes promotions of one endpoint without waiting for writes that are
    // inserting its deliveries (their foreign key check only takes KEY SHARE).
    const current = await trx
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('tenant_id', '=', delivery.tenant_id)
      .where('id', '=', delivery.endpoint_id)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!current) return undefined; // deleted meanwhile (the delivery went with it)
    await trx.updateTable('webhook_deliveries').set(deliveryChanges(row)).where('tenant_id', '=', delivery.tenant_id).where('id', '=', row.id).execute();
    const key = { tenantId: delivery.tenant_id, endpointId: delivery.endpoint_id };
    const next = delivery.in_order === 1 && row.status !== 'pending' ? await promoteNext(trx, key, now.toISOString(), leaseUntil) : undefined;
    if (!endpointEnabled) return next;
    const endpoint = trx.updateTable('webhook_endpoints').where('tenant_id', '=', delivery.tenant_id).where('id', '=', delivery.endpoint_id);
    if (ok) {
      if (current.consecutive_failures !== 0) await endpoint.set({ consecutive_failures: 0 }).execute();
    } else if (!gaveUp) await endpoint.set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) })).execute();
    else {
      const reason = `Deliveries failed for ${durationText(settings.giveUpAfterMs)} (${current.consecutive_failures + 1} attempts in a row; last: ${last})`;
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
    return next;
  });
}

/** One delivery: sign the event with every secret in force and POST it, then record what happened; the endpoint's next delivery if `chain` claimed it. */
async function deliver(db: Db, settings: WebhookSettings, delivery: Delivery, chain: boolean): Promise<Delivery | undefined> {
  const [endpoint, event] = await Promise.all([
    db.kysely.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', delivery.tenant_id).where('id', '=', delivery.endpoint_id).executeTakeFirst(),
    db.kysely
      .selectFrom('events')
      .select(['id', 'resource'])
      .where('tenant_id', '=', delivery.tenant_id)
      .where('id', '=', delivery.event_id)
      .executeTakeFirst(),
  ]);
  if (!endpoint || !event) return undefined; // deleted meanwhile (the delivery went with it)
  if (endpoint.enabled !== 1) return recordOutcome(db, settings, delivery, { statusCode: null, error: 'endpoint disabled', latencyMs: 0 }, false, chain);
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
  return recordOutcome(db, settings, delivery, outcome, true, chain);
}

export interface DeliverySender {
  /** Stops claiming and waits for the attempts in flight (each bounded by its timeout). */
  stop(): Promise<void>;
}

/**
 * The sender: every `pollMs`, and whenever a slot frees, claims due deliveries (up to MAX_IN_FLIGHT)
 * and sends them. A done in-order delivery claims the endpoint's next in the same transaction, so a
 * backlog drains at the receiver's pace beside other endpoints' chains. A cut-short attempt is
 * claimed again when its lease ends: at least once, the receiver dropping repeats by `webhook-id`.
 */
export function startDeliverySender(db: Db, settings: WebhookSettings, log: SenderLog): DeliverySender {
  let stopped = false;
  // While the database cannot take writes the sender pauses quietly (databasePause.ts).
  const pause = new DatabasePause(log, settings.pollMs);
  const onError = (err: unknown) => {
    if (!pause.failed(err)) log.warn({ err }, 'webhook delivery failed');
  };
  const inFlight = new Set<Promise<void>>();
  let claiming: Promise<void> | undefined;
  const leaseMs = settings.attemptTimeoutMs + LEASE_MARGIN_MS;
  const sendChain = async (first: Delivery) => {
    let next: Delivery | undefined = first;
    while (next) {
      const current: Delivery = next;
      next = await deliver(db, settings, current, !stopped).catch((err) => {
        onError(err);
        return undefined;
      });
    }
  };
  const start = (claimed: Delivery[]) => {
    for (const delivery of claimed) {
      const chain: Promise<void> = sendChain(delivery).finally(() => {
        inFlight.delete(chain);
        tick();
      });
      inFlight.add(chain);
    }
  };
  // Tenants found with due deliveries, claimed from in turn as slots free: one that had more
  // than fitted goes to the back, so a tenant with a backlog does not hold the others up.
  const backlog = new Set<string>();
  const claimFrom = async (tenantId: string, sweep: boolean) => {
    const room = Math.max(0, MAX_IN_FLIGHT - inFlight.size);
    const claimed = await claimDue(db, tenantId, new Date(), leaseMs, room, sweep);
    pause.succeeded();
    backlog.delete(tenantId);
    if (claimed.length === room) backlog.add(tenantId);
    start(claimed);
  };
  // Once per poll, even with every slot taken (another process may have room for what it makes
  // due): each tenant with endpoints asked what it has, in one statement; an idle endpoint's
  // head made at once, due deliveries left to the backlog. Every statement names its tenant.
  const sweepTenants = async () => {
    for (let after = ''; !stopped; ) {
      const page = await webhookTenantsQuery(db.kysely, after, TENANT_PAGE).execute();
      for (const { id } of page) {
        if (stopped) return;
        const work = await tenantWork(db.kysely, id, new Date());
        if (work.due) backlog.add(id);
        if (work.headless) await claimFrom(id, true);
      }
      if (page.length < TENANT_PAGE) return;
      after = page.at(-1)!.id;
    }
  };
  let sweepDue = false;
  const claimMore = async () => {
    if (sweepDue && !stopped) {
      sweepDue = false;
      await sweepTenants();
    }
    // Again while claims start chains: a slot freed meanwhile found this claiming and left it the work.
    for (let started = true; started; ) {
      started = false;
      for (const tenantId of [...backlog]) {
        if (stopped || inFlight.size >= MAX_IN_FLIGHT) return;
        const before = inFlight.size;
        await claimFrom(tenantId, false);
        started ||= inFlight.size > before;
      }
    }
  };
  const tick = () => {
    if (claiming || stopped || !pause.mayTry()) return;
    claiming = claimMore()
      .catch(onError)
      .finally(() => (claiming = undefined));
  };
  const timer = setInterval(() => {
    sweepDue = true;
    tick();
  }, settings.pollMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await claiming;
      await Promise.all([...inFlight]);
    },
  };
}
