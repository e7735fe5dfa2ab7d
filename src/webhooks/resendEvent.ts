import type { Write } from '../db/writeTransaction.ts';
import { enqueueDeliveries } from '../events/outbox.ts';

/**
 * A new delivery of the event to every enabled endpoint that wants its type, due now and out of
 * band: it neither waits for the endpoint's queue nor holds it up, and may arrive beside it. The
 * same `webhook-id` (the event id), so a receiver that has it drops it.
 */
export function resendEvent(write: Write, tenantId: string, event: { id: string; type: string }) {
  return enqueueDeliveries(write, tenantId, [event], new Date().toISOString(), false);
}
