import { randomUUID } from 'node:crypto';
import { tailCountSql } from '../lists/index.ts';
import { dialectOf } from '../db/dialectOf.ts';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, SeedRunTable } from '../db/schema.ts';

/** A run's row: its tenant and id (every statement names the tenant: docs/scaling.md, Citus). */
export interface SeedRunKey {
  tenantId: string;
  id: string;
}

/** What identifies a seed run: its arguments. */
export interface RunArguments {
  tenantId: string;
  seed: string;
  accounts: number;
  payments: number;
  until: Date;
}

function numbers(run: SeedRunTable): SeedRunTable {
  for (const k of ['accounts', 'payments', 'accounts_before', 'payments_before', 'accounts_done', 'payments_done'] as const) run[k] = Number(run[k]);
  return run;
}

export async function findRun(db: Kysely<Database>, args: RunArguments): Promise<SeedRunTable | undefined> {
  const run = await db
    .selectFrom('seed_runs')
    .selectAll()
    .where('tenant_id', '=', args.tenantId)
    .where('seed', '=', args.seed)
    .where('accounts', '=', args.accounts)
    .where('payments', '=', args.payments)
    .where('until', '=', args.until.toISOString())
    .executeTakeFirst();
  return run && numbers(run);
}

/**
 * The run with these arguments: the one recorded, or a new one. A new run records the tenant's
 * totals (its rows derive from them) and, in order, the accounts the tenant has (its payments
 * go to them too), so that resuming it later makes the same rows whatever was written since.
 * Two processes starting the same run at once get the same row (the unique key decides).
 */
export async function findOrStartRun(db: Kysely<Database>, args: RunArguments): Promise<SeedRunTable> {
  const found = await findRun(db, args);
  if (found) return found;
  await db.transaction().execute(async (trx) => {
    const id = `seedrun_${randomUUID()}`;
    const now = new Date().toISOString();
    const all = { account_id: [''], status: [''], currency: [''], card_brand: [''] };
    // The kept count and the changes not folded yet (lists/counters/changeTail.ts).
    const total = (list: 'accounts' | 'payments') =>
      sql`((select coalesce(sum(n), 0) from list_counts where tenant_id = ${args.tenantId} and list = ${list} and account_id = '' and status = '' and currency = '' and card_brand = '')
        + ${tailCountSql(dialectOf(trx), args.tenantId, list, all)})`;
    // A write first (SQLite takes its write lock at once), reading the totals in the same statement.
    const inserted = await sql`insert into seed_runs
        (id, tenant_id, seed, accounts, payments, until, accounts_before, payments_before, accounts_done, payments_done, started_at, updated_at, finished_at)
      values (${id}, ${args.tenantId}, ${args.seed}, ${args.accounts}, ${args.payments}, ${args.until.toISOString()},
        ${total('accounts')}, ${total('payments')}, 0, 0, ${now}, ${now}, null)
      on conflict (tenant_id, seed, accounts, payments, until) do nothing`.execute(trx);
    if (Number(inserted.numAffectedRows ?? 0) === 1) {
      await sql`insert into seed_run_accounts (tenant_id, run_id, position, account_id, currency)
        select tenant_id, ${id}, row_number() over (order by id) - 1, id, currency from accounts where tenant_id = ${args.tenantId}`.execute(trx);
    }
  });
  const run = await findRun(db, args);
  if (!run) throw new Error('seed run vanished as it was recorded');
  return run;
}

/** The accounts the tenant had when the run started, in the run's order. */
export function runPoolAccounts(db: Kysely<Database>, run: SeedRunKey) {
  return db
    .selectFrom('seed_run_accounts')
    .select(['account_id', 'currency'])
    .where('tenant_id', '=', run.tenantId)
    .where('run_id', '=', run.id)
    .orderBy('position')
    .execute();
}

export const RUN_TAKEN = 'another process is running the same seed run (its progress moved); let it finish, or run this command again once it stopped';

/** A seed that cannot be done as asked (no accounts to pay into; another process on the same run). */
export class SeedInputError extends Error {}

/**
 * In a batch's transaction, after its rows and before its counts: moves the run's progress
 * from what this process last committed to what the batch adds. It locks the run's row, so a
 * second process on the same run waits, then finds the progress moved and stops.
 */
export async function claimBatch(
  trx: Transaction<Database>,
  run: SeedRunKey,
  from: { accounts: number; payments: number },
  to: { accounts: number; payments: number; finished: boolean },
): Promise<void> {
  const now = new Date().toISOString();
  const result = await trx
    .updateTable('seed_runs')
    .set({ accounts_done: to.accounts, payments_done: to.payments, updated_at: now, finished_at: to.finished ? now : null })
    .where('tenant_id', '=', run.tenantId)
    .where('id', '=', run.id)
    .where('accounts_done', '=', from.accounts)
    .where('payments_done', '=', from.payments)
    .where('finished_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new SeedInputError(RUN_TAKEN);
  if (to.finished) await trx.deleteFrom('seed_run_accounts').where('tenant_id', '=', run.tenantId).where('run_id', '=', run.id).execute();
}
