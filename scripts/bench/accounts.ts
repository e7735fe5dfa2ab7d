import { getJson } from './scenarios.ts';

/** How many of the tenant's accounts are looked at to find the busiest one. */
const ACCOUNTS_CHECKED = 50;

/**
 * The account with the most payments among the first 50 of the tenant's accounts, read through
 * the API (each account's payments list at per_page=1 says its meta.total).
 */
export async function busiestAccount(base: string, key: string): Promise<{ id: string; payments: number }> {
  const accounts = (await getJson(`${base}/accounts?per_page=${ACCOUNTS_CHECKED}`, key)).data as Array<{ id: string }>;
  let best = { id: '', payments: -1 };
  for (const { id } of accounts) {
    const total = (await getJson(`${base}/accounts/${id}/payments?per_page=1`, key)).meta.total as number;
    if (total > best.payments) best = { id, payments: total };
  }
  if (!best.id) throw new Error('the bench tenant has no accounts');
  return best;
}

export interface PayableAccount {
  id: string;
  currency: string;
}

/** A few dozen of the tenant's active accounts (closed ones cannot take payments), with their own currency. */
export async function writerAccounts(base: string, key: string, count = 36): Promise<PayableAccount[]> {
  const page = await getJson(`${base}/accounts?filter[status]=active&per_page=${count}`, key);
  const accounts = (page.data as Array<{ id: string; currency: string }>).map(({ id, currency }) => ({ id, currency }));
  if (accounts.length === 0) throw new Error('the bench tenant has no active account to write to');
  return accounts;
}
