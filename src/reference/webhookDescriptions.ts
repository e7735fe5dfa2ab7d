import { EVENT_TYPES } from '../events/eventTypes.ts';

const HEADER = (description: string) => ({ required: true, schema: { type: 'string' }, description });

/**
 * OpenAPI 3.1 `webhooks`: one entry per event type, each a POST to the merchant's endpoint whose
 * body is the Event (its `data` the account or payment after the change), signed per Standard Webhooks.
 */
export function webhooksDescription(eventRef: string) {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on${type.replace(/(^|[._])(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`,
          summary: `${type}: sent to each enabled endpoint whose enabled_events include it (or "*")`,
          description:
            'Verify before trusting: `await client.webhooks.verify(body, headers, secret)` or any Standard Webhooks library. Answer 2xx within WEBHOOK_TIMEOUT_MS (10 s); anything else, a timeout or a redirect is retried with exponential backoff for up to 3 days. Delivery is at least once: drop repeats by `webhook-id` (the event id). An endpoint gets its events in the order they happened (`created_at`, then `id`), one at a time: a later one waits while an earlier one is retried. A resend (`POST /v3/events/{event}/resend`) is out of band.',
          tags: ['webhooks'],
          parameters: [
            { name: 'webhook-id', in: 'header', ...HEADER('The event id (`evt_…`): the same on every retry and resend') },
            { name: 'webhook-timestamp', in: 'header', ...HEADER('Seconds since the epoch when this attempt was signed') },
            {
              name: 'webhook-signature',
              in: 'header',
              ...HEADER('`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, space-separated, one per secret in force (two during a rotation)'),
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: eventRef } } } },
          responses: { '2XX': { description: 'Received; any other answer is retried' } },
        },
      },
    ]),
  );
}
