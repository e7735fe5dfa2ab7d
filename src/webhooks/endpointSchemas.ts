import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../core/schemaTypes.ts';
import { EVENT_TYPES } from '../events/eventTypes.ts';
import type { ListSpec } from '../lists/index.ts';

const EnabledEvents = Type.Array(StringEnum([...EVENT_TYPES, '*'] as const), {
  minItems: 1,
  uniqueItems: true,
  description: 'Event types to receive; `["*"]` for all',
});

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ examples: ['whe_01JDQ7ZK3V6M8Y2W4T9N5R1B0C'] }),
    url: Type.String({ format: 'uri' }),
    enabled_events: EnabledEvents,
    enabled: Type.Boolean(),
    disabled_reason: Nullable(Type.String({ description: 'Why the sender disabled it (null when enabled or disabled by you)' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookEndpoint' },
);

/** The endpoint with its signing secret: only in the answer that made the secret (create, rotate). */
export const WebhookEndpointWithSecretSchema = Type.Intersect([
  WebhookEndpointSchema,
  Type.Object({ secret: Type.String({ description: 'Shown once: `whsec_` + base64 key (Standard Webhooks)' }) }),
]);

const Url = Type.String({ minLength: 1, maxLength: 2048 });

export const CreateEndpointBody = Type.Object(
  { url: Url, enabled_events: EnabledEvents, enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type CreateEndpointInput = Static<typeof CreateEndpointBody>;

export const UpdateEndpointBody = Type.Object(
  { url: Type.Optional(Url), enabled_events: Type.Optional(EnabledEvents), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type UpdateEndpointInput = Static<typeof UpdateEndpointBody>;

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    endpoint_id: Type.String(),
    event_id: Type.String(),
    status: StringEnum(['pending', 'succeeded', 'failed'] as const),
    attempts: Type.Integer(),
    next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    last_status_code: Nullable(Type.Integer()),
    last_latency_ms: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery' },
);

export const endpointListSpec = {
  name: 'webhook endpoints',
  filters: {},
  sorts: { created_at: 'created_at' },
  defaultSort: 'created_at',
} as const satisfies ListSpec;

export const deliveryListSpec = {
  name: 'deliveries',
  filters: { status: { kind: 'enum', values: ['pending', 'succeeded', 'failed'], column: 'status' }, created_at: { kind: 'timeRange', column: 'created_at' } },
  sorts: { created_at: 'created_at' },
  defaultSort: 'created_at',
} as const satisfies ListSpec;
