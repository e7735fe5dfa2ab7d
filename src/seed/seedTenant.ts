import type { Kysely } from 'kysely';
import type { Database, Dialect } from '../db/schema.ts';
import { findOrCreateTenant } from '../auth/tenantQueries.ts';
import { recountTenant } from '../counts/listCounts.ts';
import { SeedRandom } from './seedRandom.ts';
import { DAY, makeAccount, makePayment, seededIds, type SeedAccount } from './seedRows.ts';

export interface SeedOptions {
  tenant: string;
  accounts: number;
  payments: number;
  seed: string;
  /** Newest payment time; data spreads over the months before it. */
  until: Date;
  fingerprintSecret: string;
}

/** Bound parameters one statement may carry: SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = { sqlite: 32_766, postgres: 65_535 } as const;
/** Payment rows have the most columns; size every multi-row INSERT for them. */
const PAYMENT_COLUMNS = 22;

/**
 * Adds exactly N accounts and M payments to a tenant (created if missing). The same seed on
 * the same starting data gives the same rows; reruns add new rows instead of colliding.
 */
export async function seedTenant(db: Kysely<Database>, dialect: Dialect, options: SeedOptions) {
  const tenant = await findOrCreateTenant(db, options.tenant);
  const countOf = async (table: 'accounts' | 'payments') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('tenant_id', '=', tenant.id).executeTakeFirstOrThrow()).n);
  const before = { accounts: await countOf('accounts'), payments: await countOf('payments') };
  const random = new SeedRandom(`${options.seed}/${options.tenant}/${before.accounts}/${before.payments}`);
  const id = seededIds(random);
  const until = options.until.getTime();
  const batch = Math.floor(MAX_PARAMETERS[dialect] / PAYMENT_COLUMNS);

  await db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('accounts').select(['id', 'currency']).where('tenant_id', '=', tenant.id).execute();
    const pool: SeedAccount[] = existing.map((a) => ({
      ...a,
      cards: [{ brand: 'visa', last4: random.digits(4), expMonth: 12, expYear: 2030, fingerprint: `seed${random.digits(18)}` }],
    }));
    const accountStart = until - 365 * DAY;
    for (let done = 0; done < options.accounts; ) {
      const rows = [];
      for (const end = Math.min(done + batch, options.accounts); done < end; done++) {
        const made = makeAccount(random, id, tenant.id, accountStart + Math.floor((done / options.accounts) * 180 * DAY), options.fingerprintSecret);
        rows.push(made.row);
        pool.push(made.account);
      }
      await trx.insertInto('accounts').values(rows).execute();
    }
    if (options.payments > 0 && pool.length === 0) throw new Error(`tenant ${options.tenant} has no accounts to pay into; seed some with --accounts`);
    const paymentStart = until - 180 * DAY;
    const step = (180 * DAY) / Math.max(options.payments, 1);
    for (let done = 0; done < options.payments; ) {
      const rows = [];
      for (const end = Math.min(done + batch, options.payments); done < end; done++) {
        rows.push(makePayment(random, id, tenant.id, random.pick(pool), Math.floor(paymentStart + done * step)));
      }
      await trx.insertInto('payments').values(rows).execute();
    }
    // Bulk loads bypass the per-write counters; rebuild the tenant's exact totals in the same transaction.
    await recountTenant(trx, dialect, tenant.id);
  });
  return { tenantId: tenant.id, accounts: options.accounts, payments: options.payments };
}
