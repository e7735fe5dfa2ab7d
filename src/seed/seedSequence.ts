import type { AccountTable } from '../db/schema.ts';
import { SeedRandom } from './seedRandom.ts';
import { DAY, existingAccountCard, makeAccount, makePayment, seededIds, type SeedAccount, type SeedPayment } from './seedRows.ts';

/**
 * Rows are made in blocks of this many, each block from its own random source derived from
 * the run and the block's number: row i of a run is the same however the run was cut into
 * batches, stopped and resumed (a resumed run remakes at most one block's earlier rows).
 */
export const BLOCK_ROWS = 1000;

/** What a run's rows derive from: its arguments and the tenant's totals when it started. */
export interface RunBasis {
  tenant: string;
  tenantId: string;
  seed: string;
  accounts: number;
  payments: number;
  untilMs: number;
  accountsBefore: number;
  paymentsBefore: number;
  fingerprintSecret: string;
}

function runText(basis: RunBasis): string {
  return `${basis.seed}/${basis.tenant}/${basis.accountsBefore}/${basis.paymentsBefore}`;
}

/** Rows `from` … `to - 1` of a sequence made block by block. */
function* blockwise<T>(from: number, to: number, sourceOf: (block: number) => (index: number) => T): Generator<T> {
  let block = -1;
  let make: (index: number) => T = () => {
    throw new Error('no block');
  };
  for (let index = Math.floor(from / BLOCK_ROWS) * BLOCK_ROWS; index < to; index++) {
    if (Math.floor(index / BLOCK_ROWS) !== block) {
      block = Math.floor(index / BLOCK_ROWS);
      make = sourceOf(block);
    }
    const row = make(index);
    if (index >= from) yield row;
  }
}

/** The run's new accounts `from` … `to - 1`: created over six months, ending six months before `until`. */
export function seedAccounts(basis: RunBasis, from: number, to: number): Generator<{ row: AccountTable; account: SeedAccount }> {
  const accountStart = basis.untilMs - 365 * DAY;
  return blockwise(from, to, (block) => {
    const random = new SeedRandom(`${runText(basis)}/accounts/${block}`);
    const id = seededIds(random);
    return (index) => makeAccount(random, id, basis.tenantId, accountStart + Math.floor((index / basis.accounts) * 180 * DAY), basis.fingerprintSecret);
  });
}

/** The run's payments `from` … `to - 1`, evenly over the six months before `until`, into accounts of `pool`. */
export function seedPayments(basis: RunBasis, pool: readonly SeedAccount[], from: number, to: number): Generator<SeedPayment> {
  if (pool.length === 0) throw new Error(`tenant ${basis.tenant} has no accounts to pay into; seed some with --accounts`);
  const paymentStart = basis.untilMs - 180 * DAY;
  const step = (180 * DAY) / Math.max(basis.payments, 1);
  return blockwise(from, to, (block) => {
    const random = new SeedRandom(`${runText(basis)}/payments/${block}`);
    const id = seededIds(random);
    return (index) => makePayment(random, id, basis.tenantId, random.pick(pool), Math.floor(paymentStart + index * step));
  });
}

/** The accounts a run's payments go to: those the tenant had when it started, with a made-up card each, then its own. */
export function paymentPool(basis: RunBasis, existing: ReadonlyArray<{ account_id: string; currency: string }>, own: Iterable<SeedAccount>): SeedAccount[] {
  const random = new SeedRandom(`${runText(basis)}/existing`);
  const pool = existing.map((a) => ({ id: a.account_id, currency: a.currency, cards: [existingAccountCard(random)] }));
  for (const account of own) pool.push(account);
  return pool;
}
