import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * The whole initial schema as plain SQL, one text for both dialects: only the types of
 * timestamps, money and metadata differ. Every list query of the API is served by one of the
 * indexes below or of later migrations (docs/query-plans.md; test/lists/queryPlans.e2e.test.ts
 * checks it); each leads with tenant_id because every query is scoped to one tenant, and ends
 * with id because id is every order's final tie-breaker.
 */
function statements(dialect: Dialect): string[] {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  const money = dialect === 'postgres' ? 'bigint' : 'integer';
  const json = dialect === 'postgres' ? 'jsonb' : 'text';
  return [
    `create table tenants (
      id text primary key,
      name text not null unique,
      created_at ${ts} not null
    )`,
    `create table api_keys (
      id text primary key,
      tenant_id text not null references tenants (id),
      key_hash text not null unique,
      key_prefix text not null,
      scopes text not null,
      created_at ${ts} not null,
      revoked_at ${ts}
    )`,
    `create table accounts (
      id text primary key,
      tenant_id text not null references tenants (id),
      name text not null,
      email text not null,
      currency text not null,
      status text not null,
      metadata ${json} not null,
      created_at ${ts} not null,
      updated_at ${ts} not null
    )`,
    `create index accounts_tenant_created on accounts (tenant_id, created_at, id)`,
    `create index accounts_tenant_name on accounts (tenant_id, name, id)`,
    `create index accounts_tenant_status_created on accounts (tenant_id, status, created_at, id)`,
    `create index accounts_tenant_currency_created on accounts (tenant_id, currency, created_at, id)`,
    `create index accounts_tenant_email on accounts (tenant_id, lower(email))`,
    `create table payments (
      id text primary key,
      tenant_id text not null references tenants (id),
      account_id text not null references accounts (id),
      amount ${money} not null,
      currency text not null,
      status text not null,
      amount_refunded ${money} not null,
      method text not null,
      card_brand text not null,
      card_last4 text not null,
      card_exp_month integer not null,
      card_exp_year integer not null,
      card_fingerprint text not null,
      description text,
      reference text,
      failure_code text,
      failure_message text,
      metadata ${json} not null,
      captured_at ${ts},
      created_at ${ts} not null,
      updated_at ${ts} not null
    )`,
    `create index payments_tenant_created on payments (tenant_id, created_at, id)`,
    `create index payments_tenant_amount on payments (tenant_id, amount, id)`,
    `create index payments_tenant_account_created on payments (tenant_id, account_id, created_at, id)`,
    `create index payments_tenant_account_amount on payments (tenant_id, account_id, amount, id)`,
    `create index payments_tenant_status_created on payments (tenant_id, status, created_at, id)`,
    `create index payments_tenant_status_amount on payments (tenant_id, status, amount, id)`,
    `create index payments_tenant_currency_created on payments (tenant_id, currency, created_at, id)`,
    `create index payments_tenant_brand_created on payments (tenant_id, card_brand, created_at, id)`,
    `create index payments_tenant_last4 on payments (tenant_id, card_last4, created_at, id)`,
    `create index payments_tenant_reference on payments (tenant_id, reference, created_at, id)`,
  ];
}

export function initialMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of statements(dialect)) await sql.raw(statement).execute(db);
    },
  };
}
