import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Write } from '../db/writeTransaction.ts';
import { withFlags } from '../db/driverFlags.ts';
import { newId } from '../core/resourceId.ts';
import { newDelivery } from './deliveryResource.ts';
import type { EventType } from './eventTypes.ts';

/** Whether an endpoint that asked for `enabledEvents` (JSON text) receives events of `type`. */
export function wantsEvent(enabledEvents: string, type: string): boolean {
  const wanted = JSON.parse(enabledEvents) as string[];
  return wanted.includes('*') || wanted.includes(type);
}

/** One event to record: its type, the resource it is about, and that resource's stored JSON text (after the change; before it, for a deletion). */
export interface NewEvent {
  type: EventType;
  resourceId: string;
  resource: string;
}

/**
 * Records one event in the write's own transaction (the transactional outbox): the event and a
 * pending delivery for every enabled endpoint of the tenant that wants its type. It commits or
 * rolls back with the change, so no change goes unannounced and no event announces a change
 * that did not happen. Its count comes with the write's list change (lists/counters/listChanges.ts).
 */
export async function recordEvent(write: Write, tenantId: string, type: EventType, resourceId: string, resource: string): Promise<string> {
  const [id] = await insertEvents(write, tenantId, [{ type, resourceId, resource }]);
  return id;
}

/**
 * recordEvent for several events of one change, in order: one insert of the events and one look
 * at the endpoints (one statement on PostgreSQL: a round trip less), one insert of the deliveries
 * when an endpoint wants them.
 */
export async function insertEvents(write: Write, tenantId: string, events: NewEvent[]): Promise<string[]> {
  const now = new Date().toISOString();
  const rows = events.map(({ type, resourceId, resource }) => {
    const id = newId('evt');
    const event = `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"created_at":${JSON.stringify(now)},"data":${resource}}`;
    return { id, tenant_id: tenantId, type, resource_id: resourceId, created_at: now, resource: event };
  });
  const insert = write.trx.insertInto('events').values(rows);
  if (write.dialect === 'postgres') {
    // The insert, and what the write held (its list change and metadata entries), as data-modifying CTEs:
    // each runs to its end whether or not the select reads it.
    const { rows: endpoints } = await write.trx.executeQuery(withFlags(enabledEndpoints(write.withHeld(insert), tenantId).compile(), { prepared: true }));
    await insertDeliveries(write, tenantId, endpoints, rows, now, true);
  } else {
    await insert.execute();
    await enqueueDeliveries(write, tenantId, rows, now, true);
  }
  return rows.map((r) => r.id);
}

/** The tenant's enabled endpoints, with the event types each wants. */
function enabledEndpoints(db: Pick<Kysely<Database>, 'selectFrom'>, tenantId: string) {
  return db.selectFrom('webhook_endpoints').select(['id', 'enabled_events']).where('tenant_id', '=', tenantId).where('enabled', '=', 1);
}

type Endpoint = { id: string; enabled_events: string };

async function insertDeliveries(
  { trx }: Write,
  tenantId: string,
  endpoints: Endpoint[],
  events: Array<{ id: string; type: string }>,
  now: string,
  inOrder: boolean,
) {
  const rows = events.flatMap((event) =>
    endpoints.filter((e) => wantsEvent(e.enabled_events, event.type)).map((e) => newDelivery(tenantId, e.id, event.id, now, inOrder)),
  );
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows;
}

/**
 * A delivery of each event to every enabled endpoint of the tenant that wants its type: what
 * recording events (`inOrder`: queued behind the endpoint's earlier events) and resending one
 * (out of band, due at once) both do, in the caller's transaction. Events in their order.
 */
export async function enqueueDeliveries(write: Write, tenantId: string, events: Array<{ id: string; type: string }>, now: string, inOrder: boolean) {
  return insertDeliveries(write, tenantId, await enabledEndpoints(write.trx, tenantId).execute(), events, now, inOrder);
}
