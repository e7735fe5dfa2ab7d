import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { WebhookEndpointTable } from '../db/schema.ts';
import type { EventType } from '../events/eventTypes.ts';

type EndpointColumns = Omit<Selectable<WebhookEndpointTable>, 'resource'>;

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** An endpoint as the API shows it: never its secrets (those are shown once, when made). */
export function toEndpointResource(row: EndpointColumns) {
  return {
    id: row.id,
    url: row.url,
    enabled_events: JSON.parse(row.enabled_events) as Array<EventType | '*'>,
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function withEndpointResource(row: EndpointColumns): Selectable<WebhookEndpointTable> {
  return { ...row, resource: JSON.stringify(toEndpointResource(row)) };
}
