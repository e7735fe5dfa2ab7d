import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * Seed runs (the `seed` command): one row per run, identified by its arguments (tenant, seed,
 * accounts, payments, until), with the rows it has committed so far. Every batch of a run
 * moves `accounts_done` / `payments_done` in its own transaction, so an interrupted run
 * continues from its last committed batch and a completed one is not repeated.
 * `accounts_before` / `payments_before` are the tenant's totals when the run started (its rows
 * derive from them); `seed_run_accounts` keeps, in order, the accounts the tenant already had
 * then, which the run's payments are also spread over. Those rows go when the run completes.
 */
export function seedRunsMigration(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  const count = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(`create table seed_runs (
        id text primary key,
        tenant_id text not null references tenants (id),
        seed text not null,
        accounts ${count} not null,
        payments ${count} not null,
        until ${ts} not null,
        accounts_before ${count} not null,
        payments_before ${count} not null,
        accounts_done ${count} not null,
        payments_done ${count} not null,
        started_at ${ts} not null,
        updated_at ${ts} not null,
        finished_at ${ts},
        unique (tenant_id, seed, accounts, payments, until)
      )`)
        .execute(db);
      await sql
        .raw(`create table seed_run_accounts (
        run_id text not null references seed_runs (id),
        position ${count} not null,
        account_id text not null,
        currency text not null,
        primary key (run_id, position)
      )`)
        .execute(db);
    },
  };
}
