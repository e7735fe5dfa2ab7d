import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';
import { dueQuery, endpointsWithoutHeadQuery, headQuery, nextInOrderQuery } from '../../src/webhooks/deliveryQueue.ts';

export interface SenderQuery {
  label: string;
  /** The indexes its plan must use (and no sort of deliveries). */
  indexes: string[];
  query: (db: Kysely<Database>) => Parameters<typeof import('./explainPlan.ts').explainPlan>[2];
}

/** The webhook sender's queries (src/webhooks/deliveryQueue.ts), as it sends them every poll. */
export const SENDER_QUERIES: SenderQuery[] = [
  { label: 'due deliveries (the claim)', indexes: ['webhook_deliveries_due'], query: (db) => dueQuery(db, new Date().toISOString()) },
  { label: 'an endpoint’s head', indexes: ['webhook_deliveries_endpoint_head'], query: (db) => headQuery(db, 'we_x') },
  { label: 'an endpoint’s next delivery in event order', indexes: ['webhook_deliveries_endpoint_queue'], query: (db) => nextInOrderQuery(db, 'we_x') },
  {
    label: 'endpoints with queued deliveries and no head (each poll)',
    indexes: ['webhook_deliveries_endpoint_queue', 'webhook_deliveries_endpoint_head'],
    query: (db) => endpointsWithoutHeadQuery(db),
  },
];
