import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * Idempotency keys (Stripe semantics). One row per (tenant, key): the fingerprint of the
 * first request, and once it finished, its response. `locked_until` marks a request in flight.
 */
export function idempotencyMigration(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(`create table idempotency_keys (
        tenant_id text not null references tenants (id),
        key text not null,
        request_hash text not null,
        locked_until ${ts},
        response_status integer,
        response_body text,
        response_location text,
        created_at ${ts} not null,
        primary key (tenant_id, key)
      )`)
        .execute(db);
      await sql.raw(`create index idempotency_keys_created on idempotency_keys (created_at)`).execute(db);
    },
  };
}
