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
 * Ordering per endpoint: of its in-order pending deliveries only the head has a `next_attempt_at`, and
 * the claim takes only due rows, so an endpoint gets one event at a time and a failing head holds the
 * rest back. When the head is done the next in event order becomes head, in the same transaction,
 * with the endpoint's row locked so two senders never both make one (decision 0070).
 */

/** An endpoint, as every statement about it names it: with its tenant (docs/scaling.md, Citus). */
export interface EndpointKey {
  tenantId: string;
  endpointId: string;
}

/** A delivery's changes as written back: all but its key (tenant_id, id), which never change. */
export function deliveryChanges(row: Delivery) {
  const { id: _id, tenant_id: _tenant, ...changes } = row;
  return changes;
}

/**
 * The endpoint's next head, unless it has one: its first queued delivery, due now; or, given
 * `leaseUntil`, claimed at once by the caller (leased like claimDue's), and returned.
 */
export async function promoteNext(trx: Transaction<Database>, endpoint: EndpointKey, now: string, leaseUntil?: string): Promise<Delivery | undefined> {
  const head = await headQuery(trx, endpoint).executeTakeFirst();
  if (head) return undefined;
  const next = await nextInOrderQuery(trx, endpoint).executeTakeFirst();
  if (!next || next.next_attempt_at !== null) return undefined;
  const row = withDeliveryResource({ ...next, next_attempt_at: now, updated_at: now });
  await trx
    .updateTable('webhook_deliveries')
    .set({ ...deliveryChanges(row), next_attempt_at: leaseUntil ?? now })
    .where('tenant_id', '=', endpoint.tenantId)
    .where('id', '=', row.id)
    .execute();
  return leaseUntil ? { ...row, next_attempt_at: leaseUntil } : undefined;
}

/** Whether the endpoint has a head (index webhook_deliveries_endpoint_head: at most a row an endpoint). */
export function headQuery(trx: Transaction<Database> | Db['kysely'], { tenantId, endpointId }: EndpointKey) {
  return trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where(inOrderPending)
    .where('next_attempt_at', 'is not', null)
    .limit(1);
}

/** The endpoint's first in-order pending delivery by event time (index webhook_deliveries_endpoint_queue). */
export function nextInOrderQuery(trx: Transaction<Database> | Db['kysely'], { tenantId, endpointId }: EndpointKey) {
  return trx
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where(inOrderPending)
    .orderBy('created_at')
    .orderBy('event_id')
    .limit(1);
}

/**
 * The tenant's endpoints with queued deliveries and no head: new events of an idle endpoint, and
 * queues whose head went another way (purged with its event). Every endpoint of the tenant is
 * looked at, each with two probes of one row (the LIMIT 1 subqueries keep PostgreSQL from turning
 * them into a join that reads every queued delivery): endpoints are few beside deliveries. Without
 * a head every in-order pending delivery is queued, so any one will do.
 */
export function endpointsWithoutHeadQuery(trx: Transaction<Database> | Db['kysely'], tenantId: string) {
  return trx
    .selectFrom('webhook_endpoints as e')
    .select('e.id')
    .where('e.tenant_id', '=', tenantId)
    .where(
      sql<SqlBool>`(select 1 from webhook_deliveries q where q.tenant_id = e.tenant_id and q.endpoint_id = e.id and q.status = 'pending' and q.in_order = 1 limit 1) is not null`,
    )
    .where(
      sql<SqlBool>`(select 1 from webhook_deliveries h where h.tenant_id = e.tenant_id and h.endpoint_id = e.id and h.status = 'pending' and h.in_order = 1 and h.next_attempt_at is not null limit 1) is null`,
    )
    .limit(SWEEP_BATCH);
}

/** Makes a head for every endpoint of the tenant that has queued deliveries and none (endpoints another sender holds are left to it). */
async function promoteQueued(trx: Transaction<Database>, tenantId: string, now: string): Promise<void> {
  const endpoints = await endpointsWithoutHeadQuery(trx, tenantId).forNoKeyUpdate().skipLocked().execute();
  for (const e of endpoints) await promoteNext(trx, { tenantId, endpointId: e.id }, now);
}

/** The tenant's due deliveries, oldest first (index webhook_deliveries_tenant_due): heads and resends. */
export function dueQuery(trx: Transaction<Database> | Db['kysely'], tenantId: string, now: string, limit = 20) {
  return trx
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
}

/**
 * Tenants that have webhook endpoints (the only ones with deliveries: they go with their
 * endpoint), in id order after `after`: read from `tenants`, a reference table on Citus (every
 * node holds it whole), so the sweep itself names no shard.
 */
export function webhookTenantsQuery(db: Db['kysely'], after: string, limit: number) {
  return db.selectFrom('tenants').select('id').where('webhook_endpoints', '>', 0).where('id', '>', after).orderBy('id').limit(limit);
}

/**
 * What the tenant has for the sender, in one statement without a transaction (most tenants have
 * nothing most polls): a delivery due, and an endpoint with queued deliveries and no head.
 */
export function tenantWorkQuery(db: Db['kysely'], tenantId: string, now: string) {
  return db.selectNoFrom((eb) => [
    eb.exists(dueQuery(db, tenantId, now, 1).clearSelect().select(sql`1`.as('one'))).as('due'),
    eb.exists(endpointsWithoutHeadQuery(db, tenantId).limit(1)).as('headless'),
  ]);
}

/** tenantWorkQuery's answer, as booleans. */
export async function tenantWork(db: Db['kysely'], tenantId: string, now: Date): Promise<{ due: boolean; headless: boolean }> {
  const row = await tenantWorkQuery(db, tenantId, now.toISOString()).executeTakeFirstOrThrow();
  // SQLite answers 0/1, PostgreSQL false/true.
  return { due: Boolean(Number(row.due)), headless: Boolean(Number(row.headless)) };
}

/**
 * For one tenant: makes the heads of its idle endpoints (with `sweep`), then claims its due
 * deliveries, moving `next_attempt_at` past the attempt as a lease. PostgreSQL's SKIP LOCKED lets
 * every sender claim at once; SQLite runs one claim at a time. No two senders hold one delivery or one
 * endpoint's in-order deliveries; every statement names the tenant (decision 0070).
 */
export async function claimDue(db: Db, tenantId: string, now: Date, leaseMs: number, limit: number, sweep: boolean): Promise<Delivery[]> {
  return inWriteTransaction(db, async ({ trx }) => {
    if (sweep) await promoteQueued(trx, tenantId, now.toISOString());
    if (limit <= 0) return [];
    const due = await dueQuery(trx, tenantId, now.toISOString(), limit).forUpdate().skipLocked().execute();
    if (due.length === 0) return [];
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
    await trx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: leaseUntil })
      .where('tenant_id', '=', tenantId)
      .where(
        'id',
        'in',
        due.map((d) => d.id),
      )
      .execute();
    return due;
  });
}
