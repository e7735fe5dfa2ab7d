import { monotonicFactory } from 'ulid';
import type { AccountTable, PaymentTable } from '../db/schema.ts';
import { cardFingerprint } from '../payments/cardFingerprint.ts';
import type { SeedRandom } from './seedRandom.ts';
import { withAccountResource } from '../accounts/accountResource.ts';
import { withPaymentResource } from '../payments/paymentResource.ts';

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Radia', 'Linus', 'Frances', 'John', 'Hedy', 'Tim', 'Katherine', 'Dennis', 'Sophie', 'Yukihiro', 'Guido', 'Anders'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Perlman', 'Torvalds', 'Allen', 'McCarthy', 'Lamarr', 'Berners-Lee', 'Johnson', 'Ritchie', 'Wilson', 'Matsumoto', 'van Rossum', 'Hejlsberg'];
const COMPANY = ['Bakery', 'Books', 'Cycles', 'Coffee Roasters', 'Design Studio', 'Florist', 'Hardware', 'Outfitters', 'Records', 'Tea House'];
const CURRENCIES = [['USD', 40], ['EUR', 30], ['GBP', 15], ['CAD', 5], ['AUD', 5], ['JPY', 5]] as const;
const ACCOUNT_STATUS = [['active', 85], ['suspended', 10], ['closed', 5]] as const;
const PAYMENT_STATUS = [
  ['succeeded', 70], ['failed', 9], ['refunded', 4], ['partially_refunded', 3],
  ['authorized', 6], ['canceled', 4], ['pending', 4],
] as const;
const BRANDS = [['visa', 45], ['mastercard', 30], ['amex', 9], ['discover', 5], ['jcb', 4], ['diners', 3], ['unionpay', 4]] as const;
const FAILURES = [
  ['insufficient_funds', 'The card has insufficient funds.'],
  ['card_declined', 'The card was declined.'],
  ['expired_card', 'The card has expired.'],
  ['incorrect_cvc', 'The card’s security code is incorrect.'],
  ['processing_error', 'An error occurred while processing the card.'],
] as const;
const ITEMS = ['coffee beans', 'sourdough loaf', 'bicycle repair', 'logo design', 'bouquet', 'paint brushes', 'vinyl record', 'green tea', 'hiking boots', 'notebook'];
const DAY = 86_400_000;

export interface SeedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  fingerprint: string;
}

export interface SeedAccount {
  id: string;
  currency: string;
  cards: SeedCard[];
}

/** Makes the generator's ids: ULIDs whose random part comes from the seed, so reruns match. */
export function seededIds(random: SeedRandom) {
  const next = monotonicFactory(() => random.float());
  return (prefix: 'acc' | 'pay', timeMs: number) => `${prefix}_${next(timeMs)}`;
}

export function makeAccount(
  random: SeedRandom,
  id: (prefix: 'acc', t: number) => string,
  tenantId: string,
  createdMs: number,
  secret: string,
): { row: AccountTable; account: SeedAccount } {
  const first = random.pick(FIRST);
  const last = random.pick(LAST);
  const business = random.float() < 0.4;
  const name = business ? `${last} ${random.pick(COMPANY)}` : `${first} ${last}`;
  const currency = random.weighted(CURRENCIES);
  const created = new Date(createdMs).toISOString();
  const accountId = id('acc', createdMs);
  const cards = Array.from({ length: random.int(1, 3) }, () => {
    const number = `4${random.digits(15)}`;
    return {
      brand: random.weighted(BRANDS),
      last4: number.slice(-4),
      expMonth: random.int(1, 12),
      expYear: random.int(2027, 2032),
      fingerprint: cardFingerprint(secret, number),
    };
  });
  const row: AccountTable = withAccountResource({
    id: accountId,
    tenant_id: tenantId,
    name,
    email: `${(business ? last : first).toLowerCase().replace(/[^a-z]/g, '')}.${random.digits(4)}@example.com`,
    currency,
    status: random.weighted(ACCOUNT_STATUS),
    metadata: JSON.stringify(business ? { segment: 'business' } : {}),
    created_at: created,
    updated_at: created,
  });
  return { row, account: { id: accountId, currency, cards } };
}

/** A payment whose fields agree with its status (captured, refunded or failed amounts). */
export function makePayment(
  random: SeedRandom,
  id: (prefix: 'pay', t: number) => string,
  tenantId: string,
  account: SeedAccount,
  createdMs: number,
): PaymentTable {
  const status = random.weighted(PAYMENT_STATUS);
  const card = random.pick(account.cards);
  const currency = random.float() < 0.9 ? account.currency : random.weighted(CURRENCIES);
  // Mostly small baskets, a long tail of large ones.
  const major = Math.round(Math.exp(random.float() * 7.5)) + random.int(0, 99) / 100;
  const amount = currency === 'JPY' ? Math.round(major * 100) : Math.max(50, Math.round(major * 100));
  const created = new Date(createdMs).toISOString();
  const captured = ['succeeded', 'refunded', 'partially_refunded'].includes(status)
    ? new Date(createdMs + random.int(0, 3_600_000)).toISOString()
    : null;
  const amountRefunded = status === 'refunded' ? amount : status === 'partially_refunded' ? random.int(1, amount - 1) : 0;
  const failure = status === 'failed' ? random.pick(FAILURES) : null;
  const updatedMs = createdMs + (status === 'pending' ? 0 : random.int(1000, 7 * DAY));
  return withPaymentResource({
    id: id('pay', createdMs),
    tenant_id: tenantId,
    account_id: account.id,
    amount,
    currency,
    status,
    amount_refunded: amountRefunded,
    method: 'card',
    card_brand: card.brand,
    card_last4: card.last4,
    card_exp_month: card.expMonth,
    card_exp_year: card.expYear,
    card_fingerprint: card.fingerprint,
    description: random.float() < 0.8 ? random.pick(ITEMS) : null,
    reference: random.float() < 0.7 ? `ord_${random.digits(8)}` : null,
    failure_code: failure?.[0] ?? null,
    failure_message: failure?.[1] ?? null,
    metadata: random.float() < 0.2 ? JSON.stringify({ channel: random.pick(['web', 'pos', 'app']) }) : '{}',
    captured_at: captured,
    created_at: created,
    updated_at: new Date(Math.max(updatedMs, captured ? Date.parse(captured) : 0)).toISOString(),
  });
}

export { DAY };
