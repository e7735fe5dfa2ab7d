import type { Write } from '../db/writeTransaction.ts';
import { newId } from '../core/resourceId.ts';
import { adjustCounts, eventCountKeys } from '../counts/listCounts.ts';
import { newDelivery } from './deliveryResource.ts';
import type { EventType } from './eventTypes.ts';

/** Whether an endpoint that asked for `enabledEvents` (JSON text) receives events of `type`. */
export function wantsEvent(enabledEvents: string, type: string): boolean {
  const wanted = JSON.parse(enabledEvents) as string[];
  return wanted.includes('*') || wanted.includes(type);
}

/**
 * Records one event in the write's own transaction (the transactional outbox): the event, its
 * count, and a pending delivery for every enabled endpoint of the tenant that wants its type.
 * It commits or rolls back with the change, so no change goes unannounced and no event
 * announces a change that did not happen. `resource` is the resource's stored JSON text after
 * the change (before it, for a deletion).
 */
export async function recordEvent(write: Write, tenantId: string, type: EventType, resourceId: string, resource: string): Promise<string> {
  const { trx, shard } = write;
  const now = new Date().toISOString();
  const id = newId('evt');
  const event = `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"created_at":${JSON.stringify(now)},"data":${resource}}`;
  await trx.insertInto('events').values({ id, tenant_id: tenantId, type, resource_id: resourceId, created_at: now, resource: event }).execute();
  await adjustCounts(
    trx,
    tenantId,
    eventCountKeys(type).map((k) => ({ ...k, delta: 1 })),
    shard,
  );
  await enqueueDeliveries(write, tenantId, { id, type }, now, true);
  return id;
}

/**
 * A delivery of the event to every enabled endpoint of the tenant that wants its type: what
 * recording an event (`inOrder`: queued behind the endpoint's earlier events) and resending one
 * (out of band, due at once) both do, in the caller's transaction.
 */
export async function enqueueDeliveries({ trx }: Write, tenantId: string, event: { id: string; type: string }, now: string, inOrder: boolean) {
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'enabled_events'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', 1)
    .execute();
  const rows = endpoints.filter((e) => wantsEvent(e.enabled_events, event.type)).map((e) => newDelivery(tenantId, e.id, event.id, now, inOrder));
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows;
}
