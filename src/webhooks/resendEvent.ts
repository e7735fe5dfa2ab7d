import type { Write } from '../db/writeTransaction.ts';
import { newDelivery } from '../events/deliveryResource.ts';
import { wantsEvent } from '../events/outbox.ts';

/** A new delivery of the event to every enabled endpoint that wants its type, due now; the same `webhook-id` (the event id), so a receiver that has it drops it. */
export async function resendEvent({ trx }: Write, tenantId: string, event: { id: string; type: string }) {
  const now = new Date().toISOString();
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'enabled_events'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', 1)
    .execute();
  const rows = endpoints.filter((e) => wantsEvent(e.enabled_events, event.type)).map((e) => newDelivery(tenantId, e.id, event.id, now));
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows;
}
