import type { AccountTable, PaymentTable } from '../db/schema.ts';
import { cardFingerprint } from '../payments/cardFingerprint.ts';
import type { SeedRandom } from './seedRandom.ts';
import { withAccountResource } from '../accounts/accountResource.ts';

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Radia',
  'Linus',
  'Frances',
  'John',
  'Hedy',
  'Tim',
  'Katherine',
  'Dennis',
  'Sophie',
  'Yukihiro',
  'Guido',
  'Anders',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Perlman',
  'Torvalds',
  'Allen',
  'McCarthy',
  'Lamarr',
  'Berners-Lee',
  'Johnson',
  'Ritchie',
  'Wilson',
  'Matsumoto',
  'van Rossum',
  'Hejlsberg',
];
const COMPANY = ['Bakery', 'Books', 'Cycles', 'Coffee Roasters', 'Design Studio', 'Florist', 'Hardware', 'Outfitters', 'Records', 'Tea House'];
const CURRENCIES = [
  ['USD', 40],
  ['EUR', 30],
  ['GBP', 15],
  ['CAD', 5],
  ['AUD', 5],
  ['JPY', 5],
] as const;
const ACCOUNT_STATUS = [
  ['active', 85],
  ['suspended', 10],
  ['closed', 5],
] as const;
const PAYMENT_STATUS = [
  ['succeeded', 70],
  ['failed', 9],
  ['refunded', 4],
  ['partially_refunded', 3],
  ['authorized', 6],
  ['canceled', 4],
  ['pending', 4],
] as const;
const CAPTURED = new Set<string>(['succeeded', 'refunded', 'partially_refunded']);
const BRANDS = [
  ['visa', 45],
  ['mastercard', 30],
  ['amex', 9],
  ['discover', 5],
  ['jcb', 4],
  ['diners', 3],
  ['unionpay', 4],
] as const;
const FAILURES = [
  ['insufficient_funds', 'The card has insufficient funds.'],
  ['card_declined', 'The card was declined.'],
  ['expired_card', 'The card has expired.'],
  ['incorrect_cvc', 'The card’s security code is incorrect.'],
  ['processing_error', 'An error occurred while processing the card.'],
] as const;
const ITEMS = [
  'coffee beans',
  'sourdough loaf',
  'bicycle repair',
  'logo design',
  'bouquet',
  'paint brushes',
  'vinyl record',
  'green tea',
  'hiking boots',
  'notebook',
];
const CHANNELS = ['web', 'pos', 'app'];

/**
 * About one payment in this many carries `tier=gold`: a rare metadata value beside the common
 * `channel` (a fifth of payments), so a search for a rare value, and one for two keys, finds
 * something on a seeded dataset (the bench's metadata shapes). Chosen from the payment's id
 * (itself from the seed), not drawn from the block's random source: every other column of
 * every seeded row stays what it was before the key existed.
 */
const GOLD_TIER_ONE_IN = 100;

/** Whether a seeded payment gets `tier=gold`: its id's FNV-1a hash, one in GOLD_TIER_ONE_IN. */
export function hasGoldTier(paymentId: string): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < paymentId.length; i++) hash = Math.imul(hash ^ paymentId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % GOLD_TIER_ONE_IN === 0;
}

/** A payment's seeded metadata as JSON text: `channel` on a fifth, `tier=gold` on about 1 %. */
function paymentMetadata(random: SeedRandom, paymentId: string): string {
  const channel = random.float() < 0.2 ? random.pick(CHANNELS) : undefined;
  const gold = hasGoldTier(paymentId);
  if (channel === undefined) return gold ? '{"tier":"gold"}' : '{}';
  return JSON.stringify(gold ? { channel, tier: 'gold' } : { channel });
}
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

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_TIME_MAX = 2 ** 48 - 1;

function encodeUlidTime(ms: number): string {
  if (!Number.isInteger(ms) || ms <= 0 || ms > ULID_TIME_MAX) throw new Error(`not a ULID time: ${ms}`);
  let out = '';
  for (let i = 0; i < 10; i++) {
    const mod = ms % 32;
    out = CROCKFORD[mod] + out;
    ms = (ms - mod) / 32;
  }
  return out;
}

function incrementBase32(text: string): string {
  for (let i = text.length - 1; i >= 0; i--) {
    const digit = CROCKFORD.indexOf(text[i]);
    if (digit < 31) return text.slice(0, i) + CROCKFORD[digit + 1] + '0'.repeat(text.length - 1 - i);
  }
  throw new Error('ULID random part overflowed');
}

/**
 * Makes the generator's ids: ULIDs whose random part comes from the seed, so reruns match.
 * The same ids as the `ulid` package's `monotonicFactory(() => random.float())` (a test holds
 * them equal), without its per-character string building: ids are a hot path at 10M rows.
 */
export function seededIds(random: SeedRandom) {
  let lastTime = 0;
  let lastTimeText = '';
  let lastRandom = '';
  const chars: string[] = new Array(16);
  return (prefix: 'acc' | 'pay', timeMs: number): string => {
    if (timeMs <= lastTime) {
      lastRandom = incrementBase32(lastRandom);
    } else {
      lastTime = timeMs;
      lastTimeText = encodeUlidTime(timeMs);
      // The first draw is the last character, as the package builds them.
      for (let i = 15; i >= 0; i--) chars[i] = CROCKFORD[Math.floor(random.float() * 32) % 32];
      lastRandom = chars.join('');
    }
    return `${prefix}_${lastTimeText}${lastRandom}`;
  };
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

/** The accounts a tenant already had get one made-up card each (their real cards are not kept). */
export function existingAccountCard(random: SeedRandom): SeedCard {
  return { brand: 'visa', last4: random.digits(4), expMonth: 12, expYear: 2030, fingerprint: `seed${random.digits(18)}` };
}

/** A seeded payment row: every column, and `metadata` always as JSON text. */
export type SeedPayment = PaymentTable & { metadata: string };

/** A payment whose fields agree with its status (captured, refunded or failed amounts). */
export function makePayment(
  random: SeedRandom,
  id: (prefix: 'pay', t: number) => string,
  tenantId: string,
  account: SeedAccount,
  createdMs: number,
): SeedPayment {
  const status = random.weighted(PAYMENT_STATUS);
  const card = random.pick(account.cards);
  const currency = random.float() < 0.9 ? account.currency : random.weighted(CURRENCIES);
  // Mostly small baskets, a long tail of large ones.
  const major = Math.round(Math.exp(random.float() * 7.5)) + random.int(0, 99) / 100;
  const amount = currency === 'JPY' ? Math.round(major * 100) : Math.max(50, Math.round(major * 100));
  const capturedMs = CAPTURED.has(status) ? createdMs + random.int(0, 3_600_000) : undefined;
  const amountRefunded = status === 'refunded' ? amount : status === 'partially_refunded' ? random.int(1, amount - 1) : 0;
  const failure = status === 'failed' ? random.pick(FAILURES) : null;
  const updatedMs = createdMs + (status === 'pending' ? 0 : random.int(1000, 7 * DAY));
  // Drawn here, where the id always was: the draws after it come in the same order as before.
  const paymentId = id('pay', createdMs);
  const row = {
    id: paymentId,
    tenant_id: tenantId,
    account_id: account.id,
    amount,
    currency,
    status,
    amount_refunded: amountRefunded,
    refund_reason: null,
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
    metadata: paymentMetadata(random, paymentId),
    captured_at: capturedMs === undefined ? null : isoTime(capturedMs),
    created_at: isoTime(createdMs),
    updated_at: isoTime(Math.max(updatedMs, capturedMs ?? 0)),
    resource: '',
  };
  row.resource = paymentResourceJson(row);
  return row;
}

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** Year, month and day of a day number since 1970-01-01 (H. Hinnant's civil_from_days). */
function civilDate(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/**
 * `new Date(ms).toISOString()` (a test holds them equal) in arithmetic: three timestamps a
 * payment made that call the seed's most expensive step.
 */
export function isoTime(ms: number): string {
  const days = Math.floor(ms / DAY);
  const [year, month, day] = civilDate(days);
  // Years outside 0000–9999 are spelled differently (±YYYYYY); integral ms only.
  if (year < 0 || year > 9999 || !Number.isInteger(ms)) return new Date(ms).toISOString();
  let rest = ms - days * DAY;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${String(year).padStart(4, '0')}-${TWO[month]}-${TWO[day]}T${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[rest - seconds * 1000]}Z`;
}

/** Printable ASCII but `"` and `\`: JSON.stringify would only add the quotes. */
const PLAIN = /^[ !#-[\]-~]*$/;

function json(value: string | null): string {
  if (value === null) return 'null';
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/**
 * `JSON.stringify(toPaymentResource(row))` for a row whose metadata is JSON text written by
 * JSON.stringify and whose numbers are integers (as the seed's are), spelled out: the same text (a test holds them equal)
 * without building the resource object and parsing the metadata back, per row at 10M rows.
 */
export function paymentResourceJson(row: Omit<SeedPayment, 'resource'>): string {
  return `{"id":${json(row.id)},"account_id":${json(row.account_id)},"amount":${row.amount},"currency":${json(row.currency)},"status":${json(row.status)},"amount_refunded":${row.amount_refunded},"refund_reason":${json(row.refund_reason)},"method":"card","card":{"brand":${json(row.card_brand)},"last4":${json(row.card_last4)},"exp_month":${row.card_exp_month},"exp_year":${row.card_exp_year},"fingerprint":${json(row.card_fingerprint)}},"description":${json(row.description)},"reference":${json(row.reference)},"failure_code":${json(row.failure_code)},"failure_message":${json(row.failure_message)},"metadata":${row.metadata},"captured_at":${json(row.captured_at)},"created_at":${json(row.created_at)},"updated_at":${json(row.updated_at)}}`;
}

export { DAY };
