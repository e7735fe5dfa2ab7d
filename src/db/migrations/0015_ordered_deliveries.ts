import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * Deliveries in order per endpoint (issue 17). An endpoint's deliveries of recorded events
 * (`in_order = 1`) go one at a time, by the event's time (`created_at`, then `event_id`): only the
 * endpoint's head has a `next_attempt_at`; the rest wait with none (queued) until the head is
 * done. A resend (`in_order = 0`) is out of band. `first_attempt_at` starts a delivery's retry
 * window when it is first tried, not when it was queued behind others.
 *
 * Existing deliveries: a resend is one created after its event; of an endpoint's pending
 * in-order deliveries all but the first are queued, their stored resource saying so
 * (`next_attempt_at: null`, spliced into the stored text, key order kept).
 */
export function orderedDeliveriesMigration(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw('alter table webhook_deliveries add column in_order integer not null default 1').execute(db);
      await sql.raw(`alter table webhook_deliveries add column first_attempt_at ${ts}`).execute(db);
      await sql
        .raw(
          `update webhook_deliveries set in_order = 0
           where created_at <> (select e.created_at from events e where e.id = webhook_deliveries.event_id)`,
        )
        .execute(db);
      await sql.raw('update webhook_deliveries set first_attempt_at = created_at where attempts > 0').execute(db);
      const behind = await sql<{ id: string; resource: string }>`
        select d.id, d.resource from webhook_deliveries d
        where d.status = 'pending' and d.in_order = 1
          and exists (select 1 from webhook_deliveries e
                      where e.endpoint_id = d.endpoint_id and e.status = 'pending' and e.in_order = 1
                        and (e.created_at < d.created_at or (e.created_at = d.created_at and e.event_id < d.event_id)))`.execute(db);
      for (const row of behind.rows) {
        const resource = JSON.parse(row.resource) as Record<string, unknown>;
        resource.next_attempt_at = null;
        await sql`update webhook_deliveries set next_attempt_at = null, resource = ${JSON.stringify(resource)} where id = ${row.id}`.execute(db);
      }
      // The queue of an endpoint, in order: what the sender takes the next delivery from.
      await sql
        .raw(
          "create index webhook_deliveries_endpoint_queue on webhook_deliveries (endpoint_id, created_at, event_id) where status = 'pending' and in_order = 1",
        )
        .execute(db);
      // An endpoint's head (at most one row per endpoint): whether one is being sent or retried.
      await sql
        .raw(
          "create index webhook_deliveries_endpoint_head on webhook_deliveries (endpoint_id) where status = 'pending' and in_order = 1 and next_attempt_at is not null",
        )
        .execute(db);
    },
  };
}
