import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';
import { dueQuery, endpointsWithoutHeadQuery, headQuery, nextInOrderQuery, tenantWorkQuery } from '../../src/webhooks/deliveryQueue.ts';

export interface SenderQuery {
  label: string;
  /** The indexes its plan must use (and no sort of deliveries). */
  indexes: string[];
  query: (db: Kysely<Database>) => Parameters<typeof import('./explainPlan.ts').explainPlan>[2];
}

const ENDPOINT = { tenantId: 'ten_x', endpointId: 'we_x' };

/** The webhook sender's queries (src/webhooks/deliveryQueue.ts), as it sends them every poll. */
export const SENDER_QUERIES: SenderQuery[] = [
  {
    label: 'a tenant’s due deliveries (the claim)',
    indexes: ['webhook_deliveries_tenant_due'],
    query: (db) => dueQuery(db, 'ten_x', new Date().toISOString()),
  },
  { label: 'an endpoint’s head', indexes: ['webhook_deliveries_endpoint_head'], query: (db) => headQuery(db, ENDPOINT) },
  { label: 'an endpoint’s next delivery in event order', indexes: ['webhook_deliveries_endpoint_queue'], query: (db) => nextInOrderQuery(db, ENDPOINT) },
  {
    label: 'a tenant’s endpoints with queued deliveries and no head (each poll)',
    indexes: ['webhook_deliveries_endpoint_queue', 'webhook_deliveries_endpoint_head'],
    query: (db) => endpointsWithoutHeadQuery(db, 'ten_x'),
  },
  {
    label: 'what a tenant has for the sender (each poll, each tenant with endpoints)',
    indexes: ['webhook_deliveries_tenant_due', 'webhook_deliveries_endpoint_queue', 'webhook_deliveries_endpoint_head'],
    query: (db) => tenantWorkQuery(db, 'ten_x', new Date().toISOString()),
  },
];
