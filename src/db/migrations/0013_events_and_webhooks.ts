import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * Events and webhooks (issue 17). `events` is a transactional outbox: a write inserts its event
 * (the resource as it was after the change, rendered once as `resource`) in its own transaction,
 * with one `webhook_deliveries` row per enabled endpoint that wants its type. The sender claims
 * due deliveries (`next_attempt_at`), so a delivery survives restarts; `resource` of an endpoint
 * or a delivery is its API representation, rendered on every write like accounts and payments.
 */
export function eventsAndWebhooksMigration(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(`create table events (
        id text primary key,
        tenant_id text not null references tenants (id),
        type text not null,
        resource_id text not null,
        created_at ${ts} not null,
        resource text not null
      )`)
        .execute(db);
      await sql.raw('create index events_tenant_created on events (tenant_id, created_at, id)').execute(db);
      await sql.raw('create index events_tenant_type_created on events (tenant_id, type, created_at, id)').execute(db);
      await sql.raw('create index events_tenant_resource_created on events (tenant_id, resource_id, created_at, id)').execute(db);
      await sql.raw('create index events_created on events (created_at)').execute(db);
      await sql
        .raw(`create table webhook_endpoints (
        id text primary key,
        tenant_id text not null references tenants (id),
        url text not null,
        enabled_events text not null,
        enabled integer not null,
        secret text not null,
        previous_secret text,
        previous_secret_until ${ts},
        consecutive_failures integer not null,
        disabled_reason text,
        created_at ${ts} not null,
        updated_at ${ts} not null,
        resource text not null
      )`)
        .execute(db);
      await sql.raw('create index webhook_endpoints_tenant_created on webhook_endpoints (tenant_id, created_at, id)').execute(db);
      await sql
        .raw(`create table webhook_deliveries (
        id text primary key,
        tenant_id text not null references tenants (id),
        endpoint_id text not null references webhook_endpoints (id) on delete cascade,
        event_id text not null,
        status text not null,
        attempts integer not null,
        next_attempt_at ${ts},
        last_status_code integer,
        last_latency_ms integer,
        last_error text,
        created_at ${ts} not null,
        updated_at ${ts} not null,
        resource text not null
      )`)
        .execute(db);
      await sql.raw('create index webhook_deliveries_endpoint_created on webhook_deliveries (tenant_id, endpoint_id, created_at, id)').execute(db);
      await sql.raw('create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where next_attempt_at is not null').execute(db);
      await sql.raw('create index webhook_deliveries_event on webhook_deliveries (event_id)').execute(db);
    },
  };
}
