import type { Write } from '../db/writeTransaction.ts';
import { newId } from '../core/resourceId.ts';
import { withDeliveryResource } from '../events/deliveryResource.ts';
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
  const rows = endpoints
    .filter((e) => wantsEvent(e.enabled_events, event.type))
    .map((e) =>
      withDeliveryResource({
        id: newId('dlv'),
        tenant_id: tenantId,
        endpoint_id: e.id,
        event_id: event.id,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        last_status_code: null,
        last_latency_ms: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      }),
    );
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows;
}
