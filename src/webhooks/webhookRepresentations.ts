import type { RepresentationOffer } from '../representations/representationQuery.ts';
import { DeliverySchema, WebhookEndpointSchema } from './endpointSchemas.ts';

/** What webhook endpoint reads offer: `fields[webhook_endpoints]` (nothing expands). */
export const endpointRepresentation: RepresentationOffer = {
  own: { type: 'webhook_endpoints', fields: Object.keys(WebhookEndpointSchema.properties) },
  expansions: [],
};

/** What an endpoint's deliveries list offers: `fields[webhook_deliveries]` (nothing expands). */
export const deliveryRepresentation: RepresentationOffer = {
  own: { type: 'webhook_deliveries', fields: Object.keys(DeliverySchema.properties) },
  expansions: [],
};
