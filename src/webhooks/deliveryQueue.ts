import { sql, type Selectable, type SqlBool, type Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, WebhookDeliveryTable } from '../db/schema.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { withDeliveryResource } from '../events/deliveryResource.ts';

export type Delivery = Selectable<WebhookDeliveryTable>;

/** Endpoints whose queue one sweep looks at, at most. */
const SWEEP_BATCH = 100;

/**
 * An endpoint's in-order deliveries still to send: the predicate of both partial indexes
 * (migration 0015), written as literals so either planner matches it to them.
 */
const inOrderPending = sql<SqlBool>`status = 'pending' and in_order = 1`;

/**
 * Ordering per endpoint. Of an endpoint's in-order pending deliveries only one, its head, has a
 * `next_attempt_at` (due, claimed or waiting for a retry); the others are queued with none. The
 * claim takes only due rows, so an endpoint is sent one event at a time, and a head that fails
 * holds the rest back until it succeeds or is given up. When the head is done, the next in
 * event order (`created_at`, then `event_id`) becomes the head, in the same transaction.
 *
 * Every promotion runs with the endpoint's row locked (`FOR UPDATE` on PostgreSQL; a SQLite
 * write transaction holds the whole file), so two senders never both make a head for one
 * endpoint: the second sees the first's head and leaves it.
 */

/**
 * The endpoint's next head, unless it has one: its first queued delivery, due now; or, given
 * `leaseUntil`, claimed at once by the caller (leased like claimDue's), and returned.
 */
export async function promoteNext(trx: Transaction<Database>, endpointId: string, now: string, leaseUntil?: string): Promise<Delivery | undefined> {
  const head = await headQuery(trx, endpointId).executeTakeFirst();
  if (head) return undefined;
  const next = await nextInOrderQuery(trx, endpointId).executeTakeFirst();
  if (!next || next.next_attempt_at !== null) return undefined;
  const { id, ...changes } = withDeliveryResource({ ...next, next_attempt_at: now, updated_at: now });
  await trx
    .updateTable('webhook_deliveries')
    .set({ ...changes, next_attempt_at: leaseUntil ?? now })
    .where('id', '=', id)
    .execute();
  return leaseUntil ? { ...next, ...changes, id, next_attempt_at: leaseUntil } : undefined;
}

/** Whether the endpoint has a head (index webhook_deliveries_endpoint_head: at most a row an endpoint). */
export function headQuery(trx: Transaction<Database> | Db['kysely'], endpointId: string) {
  return trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where(inOrderPending)
    .where('next_attempt_at', 'is not', null)
    .limit(1);
}

/** The endpoint's first in-order pending delivery by event time (index webhook_deliveries_endpoint_queue). */
export function nextInOrderQuery(trx: Transaction<Database> | Db['kysely'], endpointId: string) {
  return trx
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where(inOrderPending)
    .orderBy('created_at')
    .orderBy('event_id')
    .limit(1);
}

/**
 * Endpoints with queued deliveries and no head: new events of an idle endpoint, and queues whose
 * head went another way (purged with its event). Every endpoint is looked at, each with two
 * probes of one row (the LIMIT 1 subqueries keep PostgreSQL from turning them into a join that
 * reads every queued delivery): endpoints are few beside deliveries. Without a head every
 * in-order pending delivery is queued, so any one will do.
 */
export function endpointsWithoutHeadQuery(trx: Transaction<Database> | Db['kysely']) {
  return trx
    .selectFrom('webhook_endpoints as e')
    .select('e.id')
    .where(sql<SqlBool>`(select 1 from webhook_deliveries q where q.endpoint_id = e.id and q.status = 'pending' and q.in_order = 1 limit 1) is not null`)
    .where(
      sql<SqlBool>`(select 1 from webhook_deliveries h where h.endpoint_id = e.id and h.status = 'pending' and h.in_order = 1 and h.next_attempt_at is not null limit 1) is null`,
    )
    .limit(SWEEP_BATCH);
}

/** Makes a head for every endpoint that has queued deliveries and none (endpoints another sender holds are left to it). */
async function promoteQueued(trx: Transaction<Database>, now: string): Promise<void> {
  const endpoints = await endpointsWithoutHeadQuery(trx).forNoKeyUpdate().skipLocked().execute();
  for (const e of endpoints) await promoteNext(trx, e.id, now);
}

/** Due deliveries, oldest first (index webhook_deliveries_due): heads and resends. */
export function dueQuery(trx: Transaction<Database> | Db['kysely'], now: string, limit = 20) {
  return trx.selectFrom('webhook_deliveries').selectAll().where('next_attempt_at', '<=', now).orderBy('next_attempt_at').orderBy('id').limit(limit);
}

/**
 * Makes the heads of idle endpoints (with `sweep`: on the poll, not every time a slot frees),
 * then claims due deliveries: their `next_attempt_at` moves past the attempt (a lease) in the claiming
 * transaction. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets every instance and worker claim at
 * once, each a different set; on SQLite a write transaction holds the whole file, so one claim
 * runs at a time. Either way no two senders hold the same delivery; and as only heads are due,
 * no two hold one endpoint's in-order deliveries.
 */
export async function claimDue(db: Db, now: Date, leaseMs: number, limit: number, sweep: boolean): Promise<Delivery[]> {
  return inWriteTransaction(db, async ({ trx }) => {
    if (sweep) await promoteQueued(trx, now.toISOString());
    if (limit <= 0) return [];
    const due = await dueQuery(trx, now.toISOString(), limit).forUpdate().skipLocked().execute();
    if (due.length === 0) return [];
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
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
