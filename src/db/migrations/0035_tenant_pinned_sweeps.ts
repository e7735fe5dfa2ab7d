import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Every statement names its tenant (issue 51, docs/scaling.md "Past one primary: Citus"): the
 * work no request does (the webhook sender, the purges, the seed) goes tenant by tenant, on keys
 * that lead with tenant_id.
 *
 * - `tenants.webhook_endpoints`: how many endpoints the tenant has, kept by their creation and
 *   deletion; the sender sweeps only tenants that have any (deliveries go with their endpoint).
 * - `webhook_deliveries_tenant_due` replaces `webhook_deliveries_due`; an endpoint's queue and head
 *   lead with tenant_id too (the sender's probes stay in the index); `idempotency_keys_tenant_created`
 *   replaces `idempotency_keys_created`; `events_created` goes (`events_tenant_created` serves the purge).
 * - `seed_run_accounts.tenant_id`, from its run.
 */
export function tenantPinnedSweepsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw('alter table tenants add column webhook_endpoints integer not null default 0').execute(db);
      await sql.raw('update tenants set webhook_endpoints = (select count(*) from webhook_endpoints w where w.tenant_id = tenants.id)').execute(db);
      await sql.raw('create index tenants_with_webhook_endpoints on tenants (id) where webhook_endpoints > 0').execute(db);
      await sql
        .raw('create index webhook_deliveries_tenant_due on webhook_deliveries (tenant_id, next_attempt_at, id) where next_attempt_at is not null')
        .execute(db);
      await sql.raw('drop index webhook_deliveries_due').execute(db);
      const pending = "where status = 'pending' and in_order = 1";
      await sql.raw('drop index webhook_deliveries_endpoint_queue').execute(db);
      await sql
        .raw(`create index webhook_deliveries_endpoint_queue on webhook_deliveries (tenant_id, endpoint_id, created_at, event_id) ${pending}`)
        .execute(db);
      await sql.raw('drop index webhook_deliveries_endpoint_head').execute(db);
      await sql
        .raw(`create index webhook_deliveries_endpoint_head on webhook_deliveries (tenant_id, endpoint_id) ${pending} and next_attempt_at is not null`)
        .execute(db);
      await sql.raw('create index idempotency_keys_tenant_created on idempotency_keys (tenant_id, created_at)').execute(db);
      await sql.raw('drop index idempotency_keys_created').execute(db);
      await sql.raw('drop index events_created').execute(db);
      await sql.raw(`alter table seed_run_accounts add column tenant_id text not null default ''`).execute(db);
      await sql.raw('update seed_run_accounts set tenant_id = (select r.tenant_id from seed_runs r where r.id = seed_run_accounts.run_id)').execute(db);
      if (dialect === 'postgres') await sql.raw('alter table seed_run_accounts alter column tenant_id drop default').execute(db);
    },
  };
}
