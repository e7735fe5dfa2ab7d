import type { Selectable } from 'kysely';
import type { WebhookDeliveryTable } from '../db/schema.ts';
import { newId } from '../core/resourceId.ts';

type DeliveryColumns = Omit<Selectable<WebhookDeliveryTable>, 'resource'>;
/** What the API shows of a delivery: not how it is queued. */
type ShownColumns = Omit<DeliveryColumns, 'in_order' | 'first_attempt_at'>;

/** A delivery as the API shows it (GET /v3/webhook_endpoints/{id}/deliveries), rendered on every write. */
export function toDeliveryResource(row: ShownColumns) {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    status: row.status as 'pending' | 'succeeded' | 'failed',
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    last_status_code: row.last_status_code,
    last_latency_ms: row.last_latency_ms,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function withDeliveryResource(row: DeliveryColumns): Selectable<WebhookDeliveryTable> {
  return { ...row, resource: JSON.stringify(toDeliveryResource(row)) };
}

/**
 * A delivery of one event to one endpoint. The outbox's is `inOrder`: queued (no
 * `next_attempt_at`) until the sender makes it its endpoint's head, so the endpoint gets its
 * events one at a time, in order. A resend is out of band: due at once.
 */
export function newDelivery(tenantId: string, endpointId: string, eventId: string, now: string, inOrder: boolean): Selectable<WebhookDeliveryTable> {
  return withDeliveryResource({
    id: newId('dlv'),
    tenant_id: tenantId,
    endpoint_id: endpointId,
    event_id: eventId,
    status: 'pending',
    attempts: 0,
    next_attempt_at: inOrder ? null : now,
    last_status_code: null,
    last_latency_ms: null,
    last_error: null,
    created_at: now,
    updated_at: now,
    in_order: inOrder ? 1 : 0,
    first_attempt_at: null,
  });
}
