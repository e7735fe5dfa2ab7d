import { isDeepStrictEqual } from 'node:util';
import { expectOffsetPageOf } from '../support/pageAgainstModel.ts';
import { expectStatus, pickAccount, pickPayment } from '../support/pickRecords.ts';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { describe, it } from 'vitest';
import { createApiKey } from '../../src/auth/tenantQueries.ts';
import { redatePayment } from '../support/redatePayment.ts';
import { foldTenant } from '../../src/lists/counters/foldChanges.ts';
import type { Db } from '../../src/db/database.ts';
import { CARD_BRANDS, PAYMENT_STATUSES } from '../../src/payments/paymentListSpec.ts';
import { ACCOUNT_STATUSES } from '../../src/accounts/accountListSpec.ts';
import { CARDS, card } from '../support/cards.ts';
import { seed } from '../support/seedHelpers.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase } from '../support/testDatabase.ts';

/*
 * Every filter shape the lists accept, against a model: each of status, currency, card_brand and
 * account_id alone and together (any-of), created_at and amount ranges (one or both ends, alone
 * and with the equality filters), every sort, pages at the start, middle, end and past it, with
 * reads interleaved with writes on two app instances, each with its own connections to one
 * database (the second finds every page the deep way), and with folds of the list changes into
 * the counts: between them every total and placement adds a tail of captures, cancels and refunds.
 *
 * Ranges are aimed at the edges of the sort buckets (src/lists/counters/sortBuckets.ts: 16 days, days,
 * hours, 5 minutes; amounts by 1–4 leading digits): payments are placed on a bucket boundary,
 * a millisecond either side of it, or on another record's created_at, and bounds are written on
 * those same instants (and on a record's own created_at or amount), ±1, at several UTC offsets,
 * with up to nine fractional digits. A total or a page built from bucket counts plus the rows of
 * the edge buckets is wrong here the moment one edge is off by one.
 *
 * The truth is not the list code: the tenant's rows in the list's order (a plain ORDER BY …, id),
 * filtered here with the comparisons the contract states (times to the nanosecond), sliced by
 * OFFSET/LIMIT; `meta` and the page's records must equal it byte for byte.
 *
 * Runs: FILTER_PROPERTY_RUNS (default 60) within FILTER_PROPERTY_SECONDS (default 45; runs stop there on a loaded machine) per
 * database; FILTER_PROPERTY_SEED replays a reported seed.
 */

const RUNS = Number(process.env.FILTER_PROPERTY_RUNS ?? 60);
const SECONDS = Number(process.env.FILTER_PROPERTY_SECONDS ?? 45);
const FC_SEED = process.env.FILTER_PROPERTY_SEED === undefined ? undefined : Number(process.env.FILTER_PROPERTY_SEED);

/**
 * Small lists still take the deep ways: bucket descent, deferred join, or skip hops of 3 rows; a
 * created_at range in amount order is placed by the amount classes at any depth (by cost it would
 * walk lists this small).
 */
const DEEP_WAY = { plainOffsetUpTo: 0, skipHop: 3, classPlacement: 'always' as const };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The bucket widths of created_at, coarsest first (sortBuckets.ts). */
const TIME_WIDTHS = [16 * DAY, DAY, HOUR, 5 * MINUTE];
/**
 * A 16-day boundary (so a boundary of every level) in the middle of the seeded months (the seed
 * spreads payments over the six months before 2026-11-01): the instants placed and bounded around.
 */
const HOT = Math.floor(Date.parse('2026-08-20T00:00:00Z') / TIME_WIDTHS[0]) * TIME_WIDTHS[0];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY'];
/** Sandbox cards of three brands (the seed uses all seven). */
const BRAND_CARDS = [CARDS.visa, CARDS.mastercard, CARDS.amex];

interface Run {
  apps: FastifyInstance[];
  db: Db;
  tenantId: string;
  key: string;
}

// ---------------------------------------------------------------------------------------------
// Instants and amounts near bucket edges, chosen when a command runs (so shrinking keeps them valid)
// ---------------------------------------------------------------------------------------------

/** How an instant is chosen: near a bucket boundary around HOT, or on a record's own created_at. */
type InstantPick = { near: 'boundary'; level: number; step: number; delta: number } | { near: 'payment' | 'account'; pick: number; delta: number };

const deltaArb = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(0, 0, -1, 1) }, { weight: 1, arbitrary: fc.integer({ min: -400_000, max: 400_000 }) });
const instantPickArb: fc.Arbitrary<InstantPick> = fc.oneof(
  fc.record({ near: fc.constant('boundary' as const), level: fc.nat(TIME_WIDTHS.length - 1), step: fc.integer({ min: -1, max: 1 }), delta: deltaArb }),
  fc.record({ near: fc.constantFrom('payment' as const, 'payment' as const, 'account' as const), pick: fc.nat(999), delta: deltaArb }),
);

/** Epoch ms of a stored time (text on SQLite, the ISO text the driver gives on PostgreSQL). */
const msOf = (value: unknown) => new Date(value as string).getTime();

async function resolveInstant(run: Run, pick: InstantPick): Promise<number> {
  if (pick.near === 'boundary') return HOT + pick.step * TIME_WIDTHS[pick.level] + pick.delta;
  const rows = await run.db.kysely
    .selectFrom(pick.near === 'payment' ? 'payments' : ('accounts' as 'payments'))
    .select(['created_at', 'id'])
    .where('tenant_id', '=', run.tenantId)
    .orderBy('id')
    .execute();
  if (rows.length === 0) return HOT + pick.delta;
  return msOf(rows[pick.pick % rows.length].created_at) + pick.delta;
}

const instantText = (pick: InstantPick) =>
  pick.near === 'boundary'
    ? `HOT${pick.step ? `${pick.step > 0 ? '+' : ''}${pick.step}×` : '±'}${['16d', '1d', '1h', '5min'][pick.level]}${pick.delta ? `${pick.delta > 0 ? '+' : ''}${pick.delta}ms` : ''}`
    : `${pick.near}#${pick.pick}.created_at${pick.delta ? `${pick.delta > 0 ? '+' : ''}${pick.delta}ms` : ''}`;

/** An amount bucket boundary: a 1–4 digit lead times a power of ten, ±1. */
const boundaryAmountArb = fc
  .tuple(fc.constantFrom(1, 5, 12, 99, 123, 999, 1234, 9999), fc.nat(3), fc.constantFrom(0, -1, 1))
  .map(([lead, e, delta]) => Math.max(1, lead * 10 ** e + delta));
/**
 * An amount class's edge (lists/counters/amountClassBuckets.ts: a one- or two-significant-digit value R is
 * a class of its own, the values up to the next one another): R, ±1; and three-significant-digit
 * values off every edge (125, 151, 234, 995), whose ranges are a run of classes less or plus a
 * sliver counted row by row (lists/plan/amountClassRanges.ts).
 */
const classEdgeArb = fc
  .tuple(fc.constantFrom(1, 2, 5, 9, 12, 15, 25, 35, 99, 125, 151, 234, 995), fc.integer({ min: 0, max: 3 }), fc.constantFrom(0, 0, -1, 1))
  .map(([lead, e, delta]) => Math.max(1, lead * 10 ** e + delta));
const amountArb = fc.oneof(boundaryAmountArb, classEdgeArb, fc.integer({ min: 1, max: 200_000 }));

type AmountPick = { near: 'value'; value: number } | { near: 'payment'; pick: number; delta: number };
const amountPickArb: fc.Arbitrary<AmountPick> = fc.oneof(
  boundaryAmountArb.map((value) => ({ near: 'value' as const, value })),
  { weight: 2, arbitrary: fc.record({ near: fc.constant('payment' as const), pick: fc.nat(999), delta: fc.constantFrom(0, -1, 1) }) },
);

async function resolveAmount(run: Run, pick: AmountPick): Promise<number> {
  if (pick.near === 'value') return pick.value;
  const rows = await run.db.kysely.selectFrom('payments').select('amount').where('tenant_id', '=', run.tenantId).orderBy('id').execute();
  return rows.length ? Math.max(0, Number(rows[pick.pick % rows.length].amount) + pick.delta) : pick.delta + 1;
}

// ---------------------------------------------------------------------------------------------
// How a time bound is written: offset, fraction digits, sub-millisecond part
// ---------------------------------------------------------------------------------------------

interface TimeWriting {
  /** Minutes east of UTC. */
  offset: number;
  /** Nanoseconds past the millisecond (0 … 999 999). */
  nanos: number;
  /** Fraction digits to write when they lose nothing: 0 (none, when the ms is whole seconds), 3, 6 or 9. */
  digits: 0 | 3 | 6 | 9;
  /** A bound at midnight UTC with no sub-millisecond part may be written as a date alone. */
  dateOnly: boolean;
}

const timeWritingArb: fc.Arbitrary<TimeWriting> = fc.record({
  offset: fc.constantFrom(0, 330, -180, 60, -570),
  nanos: fc.oneof(fc.constant(0), fc.constantFrom(1, 999_999, 500_000, 1000)),
  digits: fc.constantFrom(0 as const, 3 as const, 6 as const, 9 as const),
  dateOnly: fc.boolean(),
});

/** The exact instant in nanoseconds since the epoch, and its RFC 3339 text as the writing says. */
function writeTime(ms: number, how: TimeWriting): { ns: bigint; text: string } {
  const ns = BigInt(ms) * 1_000_000n + BigInt(how.nanos);
  if (how.dateOnly && how.nanos === 0 && ms % DAY === 0) return { ns, text: new Date(ms).toISOString().slice(0, 10) };
  const local = new Date(ms + how.offset * MINUTE).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ, shifted to the offset
  const subMs = String(how.nanos).padStart(6, '0');
  let fraction: string;
  if (how.nanos !== 0) fraction = `.${local.slice(20, 23)}${how.nanos % 1000 === 0 && how.digits === 6 ? subMs.slice(0, 3) : subMs}`;
  else if (how.digits === 0 && ms % 1000 === 0) fraction = '';
  else fraction = `.${local.slice(20, 23)}${'0'.repeat(Math.max(0, how.digits - 3))}`;
  const sign = how.offset < 0 ? '-' : '+';
  const abs = Math.abs(how.offset);
  const zone = how.offset === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return { ns, text: `${local.slice(0, 19)}${fraction}${zone}` };
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

type Op = 'gte' | 'gt' | 'lte' | 'lt';
const LOWER: Op[] = ['gte', 'gt'];
const UPPER: Op[] = ['lte', 'lt'];

interface RangeSpec<P> {
  lower?: { op: Op; at: P };
  upper?: { op: Op; at: P };
}

interface QuerySpec {
  list: 'payments' | 'accounts';
  /** Payments of one account by path (/v3/accounts/{id}/payments). */
  byPath?: number;
  status?: string[];
  currency?: string[];
  cardBrand?: string[];
  /** Picks among the tenant's accounts. */
  accountIds?: number[];
  createdAt?: RangeSpec<InstantPick> & { writing: TimeWriting[] };
  amount?: RangeSpec<AmountPick>;
  sort?: string;
  perPage: number;
  page: 'first' | 'second' | 'middle' | 'last' | 'past' | { pick: number };
  /** Then follows links.next once, when there is one. */
  followNext: boolean;
}

const subsetArb = (values: readonly string[]) => fc.subarray([...values], { minLength: 1, maxLength: 3 });
const rangeArb = <P>(at: fc.Arbitrary<P>) =>
  fc
    .record({
      ends: fc.constantFrom('lower', 'upper', 'both', 'both'),
      lower: fc.record({ op: fc.constantFrom(...LOWER), at }),
      upper: fc.record({ op: fc.constantFrom(...UPPER), at }),
    })
    .map(({ ends, lower, upper }) => ({ ...(ends !== 'upper' ? { lower } : {}), ...(ends !== 'lower' ? { upper } : {}) }) as RangeSpec<P>);
/** A range of created_at: two ends near one another (so both crossing one edge) or anywhere. */
const createdAtArb = fc
  .tuple(rangeArb(instantPickArb), fc.array(timeWritingArb, { minLength: 2, maxLength: 2 }))
  .map(([range, writing]) => ({ ...range, writing }));
const perPageArb = fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 7 }) }, { weight: 1, arbitrary: fc.constantFrom(10, 25, 100) });
const pageArb = fc.oneof(
  fc.constantFrom('first' as const, 'second' as const, 'middle' as const, 'last' as const, 'past' as const),
  fc.nat(999).map((pick) => ({ pick })),
);
/** Each filter present about one time in four (`weight` more), so that single filters and every combination come up. */
const maybe = <T>(arb: fc.Arbitrary<T>, weight = 1) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight, arbitrary: arb as fc.Arbitrary<T | undefined> });

const paymentQueryArb: fc.Arbitrary<QuerySpec> = fc.record({
  list: fc.constant('payments' as const),
  byPath: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat(99) as fc.Arbitrary<number | undefined> }),
  status: maybe(subsetArb(PAYMENT_STATUSES)),
  currency: maybe(subsetArb(CURRENCIES)),
  cardBrand: maybe(subsetArb(CARD_BRANDS)),
  accountIds: maybe(fc.array(fc.nat(99), { minLength: 1, maxLength: 2 })),
  createdAt: maybe(createdAtArb, 2),
  amount: maybe(rangeArb(amountPickArb), 2),
  sort: fc.constantFrom(undefined, 'created_at', '-created_at', 'amount', '-amount'),
  perPage: perPageArb,
  page: pageArb,
  followNext: fc.boolean(),
});
const accountQueryArb: fc.Arbitrary<QuerySpec> = fc.record({
  list: fc.constant('accounts' as const),
  status: maybe(subsetArb(ACCOUNT_STATUSES)),
  currency: maybe(subsetArb(CURRENCIES)),
  createdAt: maybe(createdAtArb),
  sort: fc.constantFrom(undefined, 'created_at', '-created_at', 'name', '-name'),
  perPage: perPageArb,
  page: pageArb,
  followNext: fc.boolean(),
});

function describeQuery(q: QuerySpec): string {
  const parts: string[] = [q.byPath !== undefined ? `accounts/account#${q.byPath}/payments` : q.list];
  if (q.status) parts.push(`status=${q.status}`);
  if (q.currency) parts.push(`currency=${q.currency}`);
  if (q.cardBrand) parts.push(`card_brand=${q.cardBrand}`);
  if (q.accountIds) parts.push(`account_id=${q.accountIds.map((a) => `account#${a}`)}`);
  const ends = <P>(r: RangeSpec<P>, text: (p: P) => string) => [r.lower, r.upper].flatMap((end) => (end ? [`${end.op} ${text(end.at)}`] : [])).join(' & ');
  if (q.createdAt) parts.push(`created_at ${ends(q.createdAt, instantText)} written ${JSON.stringify(q.createdAt.writing)}`);
  if (q.amount)
    parts.push(
      `amount ${ends(q.amount, (p) => (p.near === 'value' ? String(p.value) : `payment#${p.pick}.amount${p.delta ? `${p.delta > 0 ? '+' : ''}${p.delta}` : ''}`))}`,
    );
  parts.push(`sort=${q.sort ?? '(default)'}`, `per_page=${q.perPage}`, `page=${typeof q.page === 'string' ? q.page : `#${q.page.pick}`}`);
  if (q.followNext) parts.push('then links.next');
  return parts.join(' ');
}

/** A query resolved against the data of the moment: its URL (without page) and the model's filter. */
interface Resolved {
  path: string;
  params: string[];
  table: 'payments' | 'accounts';
  /** The scoping account of a by-path list (its absence is a 404). */
  pathAccount?: string;
  sort: Array<[column: string, direction: 'asc' | 'desc']>;
  keep: (row: TruthRow) => boolean;
  /** The range bounds as compared (for the statistics). */
  bounds: { times: bigint[]; amounts: number[] };
}

interface TruthRow {
  id: string;
  resource: string;
  createdNs: bigint;
  amount: number;
  status: string;
  currency: string;
  card_brand: string;
  account_id: string;
}

/** What the reads met (printed with FILTER_PROPERTY_STATS=1): that the edges are reached, not assumed. */
const STATS = {
  runs: 0,
  reads: 0,
  nonEmpty: 0,
  rowOnTimeBound: 0,
  rowWithinMsOfTimeBound: 0,
  rowOnAmountBound: 0,
  classesPages: 0,
  filters: new Map<string, number>(),
};
const SHOW_STATS = process.env.FILTER_PROPERTY_STATS === '1';

async function count(run: Run, q: QuerySpec, resolved: Resolved, total: number) {
  STATS.reads += 1;
  if (total > 0) STATS.nonEmpty += 1;
  const shape = ['status', 'currency', 'cardBrand', 'accountIds', 'createdAt', 'amount', 'byPath'].filter((f) => q[f as keyof QuerySpec] !== undefined);
  const name = `${q.list}: ${shape.join(' × ') || '(none)'}`;
  STATS.filters.set(name, (STATS.filters.get(name) ?? 0) + 1);
  const every = (await truth(run, { ...resolved, keep: () => true })) ?? [];
  if (resolved.bounds.times.some((ns) => every.some((r) => r.createdNs === ns - (ns % 1_000_000n)))) STATS.rowOnTimeBound += 1;
  if (resolved.bounds.times.some((ns) => every.some((r) => r.createdNs - ns <= 1_000_000n && ns - r.createdNs <= 1_000_000n)))
    STATS.rowWithinMsOfTimeBound += 1;
  if (resolved.bounds.amounts.some((v) => every.some((r) => r.amount === v))) STATS.rowOnAmountBound += 1;
}

const COMPARE: Record<Op, <T extends bigint | number>(value: T, bound: T) => boolean> = {
  gte: (v, b) => v >= b,
  gt: (v, b) => v > b,
  lte: (v, b) => v <= b,
  lt: (v, b) => v < b,
};

async function accountIds(run: Run): Promise<string[]> {
  const rows = await run.db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', run.tenantId).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.id);
}

async function resolveQuery(run: Run, q: QuerySpec): Promise<Resolved> {
  const params: string[] = [];
  const tests: Array<(row: TruthRow) => boolean> = [];
  const bounds: Resolved['bounds'] = { times: [], amounts: [] };
  const accounts = await accountIds(run);
  const pathAccount = q.byPath !== undefined ? (accounts[q.byPath % accounts.length] ?? 'acc_00000000000000000000000000') : undefined;
  const anyOf = (name: string, values: string[] | undefined, field: keyof TruthRow) => {
    if (!values) return;
    params.push(`filter[${name}]=${values.join(',')}`);
    tests.push((row) => values.includes(row[field] as string));
  };
  anyOf('status', q.status, 'status');
  anyOf('currency', q.currency, 'currency');
  anyOf('card_brand', q.cardBrand, 'card_brand');
  if (pathAccount !== undefined) tests.push((row) => row.account_id === pathAccount);
  else anyOf('account_id', q.accountIds && accounts.length ? [...new Set(q.accountIds.map((a) => accounts[a % accounts.length]))] : undefined, 'account_id');
  if (q.createdAt) {
    const range = q.createdAt;
    for (const [i, end] of [range.lower, range.upper].entries()) {
      if (!end) continue;
      const { ns, text } = writeTime(await resolveInstant(run, end.at), range.writing[i]);
      params.push(`filter[created_at][${end.op}]=${encodeURIComponent(text)}`);
      tests.push((row) => COMPARE[end.op](row.createdNs, ns));
      bounds.times.push(ns);
    }
  }
  if (q.amount) {
    for (const end of [q.amount.lower, q.amount.upper]) {
      if (!end) continue;
      const value = await resolveAmount(run, end.at);
      params.push(`filter[amount][${end.op}]=${value}`);
      tests.push((row) => COMPARE[end.op](row.amount, value));
      bounds.amounts.push(value);
    }
  }
  if (q.sort) params.push(`sort=${q.sort}`);
  const sortField = q.sort ?? 'created_at';
  return {
    path: pathAccount !== undefined ? `/v3/accounts/${pathAccount}/payments` : `/v3/${q.list}`,
    params,
    table: q.list,
    pathAccount,
    sort: [[sortField.replace(/^-/, ''), sortField.startsWith('-') ? 'desc' : 'asc']],
    keep: (row) => tests.every((test) => test(row)),
    bounds,
  };
}

/**
 * The whole filtered list in its total order, or null when the scoping account is gone: the
 * tenant's rows ordered by the sort key then id (plain SQL), filtered by the contract's
 * comparisons.
 */
async function truth(run: Run, resolved: Resolved): Promise<TruthRow[] | null> {
  const { kysely } = run.db;
  if (resolved.pathAccount !== undefined) {
    const account = await kysely
      .selectFrom('accounts')
      .select('id')
      .where('tenant_id', '=', run.tenantId)
      .where('id', '=', resolved.pathAccount)
      .executeTakeFirst();
    if (!account) return null;
  }
  const [column, direction] = resolved.sort[0];
  if (resolved.table === 'payments') {
    const rows = await kysely
      .selectFrom('payments')
      .select(['id', 'resource', 'created_at', 'amount', 'status', 'currency', 'card_brand', 'account_id'])
      .where('tenant_id', '=', run.tenantId)
      .orderBy(column as 'amount', direction)
      .orderBy('id', direction)
      .execute();
    return rows.map((r) => ({ ...r, amount: Number(r.amount), createdNs: BigInt(msOf(r.created_at)) * 1_000_000n })).filter(resolved.keep);
  }
  const rows = await kysely
    .selectFrom('accounts')
    .select(['id', 'resource', 'created_at', 'status', 'currency'])
    .where('tenant_id', '=', run.tenantId)
    .orderBy(column as 'name', direction)
    .orderBy('id', direction)
    .execute();
  return rows.map((r) => ({ ...r, amount: 0, card_brand: '', account_id: '', createdNs: BigInt(msOf(r.created_at)) * 1_000_000n })).filter(resolved.keep);
}

const urlOf = (resolved: Resolved, perPage: number, page: number) =>
  `${resolved.path}?${[...resolved.params, `per_page=${perPage}`, `page=${page}`].join('&')}`;

/** One read on one instance, compared with the truth at that moment; returns links.next (null at the end). */
async function readAndCheck(run: Run, instance: number, resolved: Resolved, url: string, what: string): Promise<string | null> {
  const which = instance % run.apps.length;
  const response = await run.apps[which].inject({ method: 'GET', url, headers: { authorization: `Bearer ${run.key}` } });
  const all = await truth(run, resolved);
  const where = `GET ${url} (${what}; instance ${which}, x-page-strategy ${String(response.headers['x-page-strategy'])})`;
  if (String(response.headers['x-page-strategy']).startsWith('classes')) STATS.classesPages += 1;
  if (all === null) {
    if (response.statusCode !== 404) throw new Error(`${where}: the account is gone, expected 404, got ${response.statusCode}`);
    return null;
  }
  return expectOffsetPageOf(response, url, all, where, 'matching rows', (r) => JSON.parse(r.resource));
}

// ---------------------------------------------------------------------------------------------
// Commands: reads of every shape, and writes that move rows in and out of them
// ---------------------------------------------------------------------------------------------

type Command = fc.AsyncCommand<object, Run>;

function command(text: string, run: (r: Run) => Promise<void>): Command {
  return { check: () => true, run: (_model, r) => run(r), toString: () => text };
}

const instanceArb = fc.nat(1);
const pickArb = fc.nat(99);

/**
 * Payments with only the filters whose counts are kept today (status, account): pages placed
 * through bucket counts alone, where an edge counted in the wrong bucket shows.
 */
const countedSliceQueryArb = fc.tuple(paymentQueryArb, fc.boolean(), fc.boolean()).map(
  ([q, status, account]): QuerySpec => ({
    ...q,
    status: status ? q.status : undefined,
    accountIds: account ? q.accountIds : undefined,
    currency: undefined,
    cardBrand: undefined,
    createdAt: undefined,
    amount: undefined,
  }),
);
/**
 * A created_at range (and now and then an amount range, or a status) with its ends on payments'
 * own values, ±1 ms: the rows at the very edge decide these totals, at every offset and digit count.
 */
const recordInstantArb = fc.record({ near: fc.constant('payment' as const), pick: fc.nat(999), delta: fc.constantFrom(0, 0, -1, 1) });
const edgeQueryArb = fc
  .tuple(paymentQueryArb, rangeArb(recordInstantArb), fc.array(timeWritingArb, { minLength: 2, maxLength: 2 }), fc.boolean(), fc.boolean())
  .map(
    ([q, range, writing, amount, status]): QuerySpec => ({
      ...q,
      byPath: undefined,
      status: status ? q.status : undefined,
      currency: undefined,
      cardBrand: undefined,
      accountIds: undefined,
      createdAt: { ...range, writing },
      amount: amount ? q.amount : undefined,
    }),
  );
/**
 * An amount range on class edges (a one- or two-significant-digit R, R - 1 written `gt`/`lte`, which is
 * the same whole range, or R + 1, which is the start or end of the class above R, or one off
 * those; drawn from a few R so that created payments land on them, or a payment's own amount ±1), on the whole list or one currency, sorted by created_at: deep pages placed by the
 * created_at buckets of whole amount classes (counts in two dimensions), and the ranges off every
 * class edge (three significant digits), placed the same way with the sliver between the end and
 * the nearest edge counted row by row per bucket.
 */
const amountClassQueryArb = fc
  .tuple(
    paymentQueryArb,
    rangeArb(
      fc.oneof(
        classEdgeArb.map((value): AmountPick => ({ near: 'value', value })),
        // A payment's own amount (created on a class edge, often), ±1.
        fc.record({ near: fc.constant('payment' as const), pick: fc.nat(999), delta: fc.constantFrom(0, -1, 1) }),
      ),
    ),
    fc.constantFrom(...CURRENCIES.slice(0, 3)),
    fc.boolean(),
  )
  .map(
    ([q, amount, currency, byCurrency]): QuerySpec => ({
      ...q,
      byPath: undefined,
      status: undefined,
      currency: byCurrency ? [currency] : undefined,
      cardBrand: undefined,
      accountIds: undefined,
      createdAt: undefined,
      amount,
      sort: q.sort === 'amount' ? 'created_at' : q.sort === '-amount' ? '-created_at' : q.sort,
    }),
  );
/**
 * A created_at range in amount order, either direction, on the whole list or one currency: pages
 * placed by the amount classes' counts summed over the time buckets inside the range, plus its
 * rows in the partly covered hours (lists/sql/amountOrderPage.ts); ends on bucket edges, ±1 ms, on
 * payments' own times (edgeQueryArb's), at several offsets.
 */
const amountOrderQueryArb = fc
  .tuple(
    paymentQueryArb,
    fc.oneof(
      createdAtArb,
      edgeQueryArb.map((q) => q.createdAt as QuerySpec['createdAt']),
    ),
    fc.constantFrom(...CURRENCIES.slice(0, 3)),
    fc.boolean(),
    fc.boolean(),
  )
  .map(
    ([q, createdAt, currency, byCurrency, descending]): QuerySpec => ({
      ...q,
      byPath: undefined,
      status: undefined,
      currency: byCurrency ? [currency] : undefined,
      cardBrand: undefined,
      accountIds: undefined,
      createdAt,
      amount: undefined,
      sort: descending ? '-amount' : 'amount',
    }),
  );
/**
 * Two of status, currency and card brand (one value or several in each) beside a created_at or an
 * amount range (and now and then both), sorted by either column: totals and deep pages from the
 * pair's own bucket counts (lists/counters/countedSlices.ts BUCKETED_SLICES, migration 0031), while
 * captures, cancels, refunds and declined cards move payments in and out of the pair's status.
 */
const pairQueryArb = fc
  .tuple(
    paymentQueryArb,
    fc.constantFrom(['status', 'currency'] as const, ['status', 'cardBrand'] as const, ['currency', 'cardBrand'] as const),
    fc.oneof(fc.constantFrom(['succeeded'], ['authorized'], ['failed'], ['succeeded', 'refunded']), subsetArb(PAYMENT_STATUSES)),
    fc.subarray(CURRENCIES.slice(0, 3), { minLength: 1, maxLength: 2 }),
    fc.subarray(['visa', 'mastercard', 'amex'], { minLength: 1, maxLength: 2 }),
    fc.oneof(
      createdAtArb.map((createdAt) => ({ createdAt, amount: undefined })),
      edgeQueryArb.map((q) => ({ createdAt: q.createdAt, amount: undefined })),
      rangeArb(amountPickArb).map((amount) => ({ createdAt: undefined, amount })),
      fc.tuple(createdAtArb, rangeArb(amountPickArb)).map(([createdAt, amount]) => ({ createdAt, amount })),
    ),
  )
  .map(
    ([q, pair, status, currency, cardBrand, ranges]): QuerySpec => ({
      ...q,
      byPath: undefined,
      accountIds: undefined,
      status: pair.includes('status' as never) ? [...status] : undefined,
      currency: pair.includes('currency' as never) ? currency : undefined,
      cardBrand: pair.includes('cardBrand' as never) ? cardBrand : undefined,
      ...ranges,
    }),
  );
/** The second instance (every page the deep way) serves two reads in three. */
const readInstanceArb = fc.constantFrom(0, 1, 1);

const read = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: paymentQueryArb },
      { weight: 2, arbitrary: countedSliceQueryArb },
      { weight: 2, arbitrary: edgeQueryArb },
      { weight: 3, arbitrary: amountClassQueryArb },
      { weight: 2, arbitrary: amountOrderQueryArb },
      { weight: 3, arbitrary: pairQueryArb },
      { weight: 1, arbitrary: accountQueryArb },
    ),
    readInstanceArb,
  )
  .map(([q, instance]) =>
    command(`read ${describeQuery(q)} @${instance}`, async (run) => {
      const resolved = await resolveQuery(run, q);
      const before = (await truth(run, resolved)) ?? [];
      // Pages derived from the total: start, middle, end, one past it, or any of those in between.
      const lastPage = Math.max(1, Math.ceil(before.length / q.perPage));
      const page =
        q.page === 'first'
          ? 1
          : q.page === 'second'
            ? Math.min(2, lastPage)
            : q.page === 'middle'
              ? Math.ceil(lastPage / 2)
              : q.page === 'last'
                ? lastPage
                : q.page === 'past'
                  ? lastPage + 1
                  : 1 + (q.page.pick % (lastPage + 1));
      const next = await readAndCheck(run, instance, resolved, urlOf(resolved, q.perPage, page), 'the query');
      if (SHOW_STATS) await count(run, q, resolved, before.length);
      if (q.followNext && next) {
        const path = next.replace(/^https?:\/\/[^/]+/, '');
        const expectedNext = new URL(urlOf(resolved, q.perPage, page + 1), 'http://x');
        const givenNext = new URL(path, 'http://x');
        const sorted = (u: URL) => [...u.searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));
        if (givenNext.pathname !== expectedNext.pathname || !isDeepStrictEqual(sorted(givenNext), sorted(expectedNext))) {
          throw new Error(`links.next of ${urlOf(resolved, q.perPage, page)} is ${path}, not the same query at page ${page + 1}`);
        }
        await readAndCheck(run, instance + 1, resolved, path, 'its links.next, on the other instance');
      }
    }),
  );

async function inject(run: Run, instance: number, method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  const response = await run.apps[instance % run.apps.length].inject({
    method,
    url,
    headers: { authorization: `Bearer ${run.key}` },
    ...(payload ? { payload } : {}),
  });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}

async function createPayment(run: Run, instance: number, accountPick: number, amount: number, brand: number, capture: boolean) {
  const account = await pickAccount(run.db.kysely, run.tenantId, accountPick, 'open');
  if (!account) return undefined;
  const created = await inject(run, instance, 'POST', '/v3/payments', {
    account_id: account.id,
    amount,
    currency: account.currency,
    capture,
    card: card(BRAND_CARDS[brand]),
  });
  expectStatus('create payment', created, 201);
  return created.body.data.id as string;
}

/**
 * Moves a payment to another created_at: the same row as if its transaction had taken that
 * timestamp (the stored JSON re-rendered by the app's renderer, the bucket counts adjusted in the
 * same transaction as the insert adjusts them). HTTP cannot choose created_at; this is how rows
 * land exactly on bucket edges.
 */
async function redate(run: Run, id: string, createdMs: number) {
  const createdAt = new Date(createdMs).toISOString();
  await run.db.kysely.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
    await redatePayment(trx, row, createdAt);
  });
}

const percentArb = fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined });

const writes = [
  fc.tuple(pickArb, amountArb, fc.nat(BRAND_CARDS.length - 1), fc.boolean(), instanceArb).map(([accountPick, amount, brand, capture, instance]) =>
    command(`create payment account#${accountPick} amount=${amount} card#${brand} ${capture ? 'captured' : 'authorized'} @${instance}`, async (run) => {
      await createPayment(run, instance, accountPick, amount, brand, capture);
    }),
  ),
  // Placed ones weigh more: they are what puts rows on the edges.
  ...Array.from({ length: 3 }, () =>
    fc
      .tuple(pickArb, amountArb, fc.nat(BRAND_CARDS.length - 1), fc.boolean(), instanceArb, instantPickArb)
      .map(([accountPick, amount, brand, capture, instance, at]) =>
        command(
          `create payment account#${accountPick} amount=${amount} card#${brand} ${capture ? 'captured' : 'authorized'} @${instance}, placed at ${instantText(at)}`,
          async (run) => {
            const at_ = await resolveInstant(run, at);
            const id = await createPayment(run, instance, accountPick, amount, brand, capture);
            if (id) await redate(run, id, at_);
          },
        ),
      ),
  ),
  // A declined card: a failed payment (still a 201), now and then placed on an edge.
  fc.tuple(pickArb, amountArb, instanceArb, fc.option(instantPickArb, { nil: undefined })).map(([accountPick, amount, instance, at]) =>
    command(`create declined payment account#${accountPick} amount=${amount} @${instance}${at ? `, placed at ${instantText(at)}` : ''}`, async (run) => {
      const account = await pickAccount(run.db.kysely, run.tenantId, accountPick, 'open');
      if (!account) return;
      const created = await inject(run, instance, 'POST', '/v3/payments', {
        account_id: account.id,
        amount,
        currency: account.currency,
        card: card(CARDS.declined),
      });
      expectStatus('create declined payment', created, 201);
      if (at) await redate(run, created.body.data.id as string, await resolveInstant(run, at));
    }),
  ),
  fc.tuple(pickArb, instantPickArb).map(([pick, at]) =>
    command(`move payment#${pick} to ${instantText(at)}, as if its transaction had taken that timestamp`, async (run) => {
      const payment = await pickPayment(run.db.kysely, run.tenantId, pick, [...PAYMENT_STATUSES]);
      if (payment) await redate(run, payment.id, await resolveInstant(run, at));
    }),
  ),
  fc.tuple(pickArb, percentArb, instanceArb).map(([pick, percent, instance]) =>
    command(`capture authorized payment#${pick}${percent ? ` for ${percent}%` : ' in full'} @${instance}`, async (run) => {
      const payment = await pickPayment(run.db.kysely, run.tenantId, pick, ['authorized']);
      if (!payment) return;
      const body = percent ? { amount: Math.max(1, Math.floor((Number(payment.amount) * percent) / 100)) } : {};
      expectStatus('capture', await inject(run, instance, 'POST', `/v3/payments/${payment.id}/capture`, body), 200);
    }),
  ),
  fc.tuple(pickArb, instanceArb).map(([pick, instance]) =>
    command(`cancel pending/authorized payment#${pick} @${instance}`, async (run) => {
      const payment = await pickPayment(run.db.kysely, run.tenantId, pick, ['pending', 'authorized']);
      if (!payment) return;
      expectStatus('cancel', await inject(run, instance, 'POST', `/v3/payments/${payment.id}/cancel`), 200);
    }),
  ),
  fc.tuple(pickArb, percentArb, instanceArb).map(([pick, percent, instance]) =>
    command(`refund succeeded/partially_refunded payment#${pick}${percent ? ` ${percent}% of what is left` : ' in full'} @${instance}`, async (run) => {
      const payment = await pickPayment(run.db.kysely, run.tenantId, pick, ['succeeded', 'partially_refunded']);
      if (!payment) return;
      const left = Number(payment.amount) - Number(payment.amount_refunded);
      const body = percent ? { amount: Math.max(1, Math.floor((left * percent) / 100)) } : {};
      expectStatus('refund', await inject(run, instance, 'POST', `/v3/payments/${payment.id}/refunds`, body), 200);
    }),
  ),
  // The folder runs rarely here (writes reach the counts mostly by this): reads meet long tails of unfolded changes.
  fc.constant(
    command("fold the tenant's list changes into the counts", async (run) => {
      await foldTenant(run.db, run.tenantId);
    }),
  ),
  fc.tuple(fc.constantFrom(...CURRENCIES.slice(0, 3)), instanceArb).map(([currency, instance]) =>
    command(`create account in ${currency} @${instance}`, async (run) => {
      expectStatus('create account', await inject(run, instance, 'POST', '/v3/accounts', { name: 'Ada Lovelace', email: 'ada@example.com', currency }), 201);
    }),
  ),
  fc.tuple(pickArb, fc.constantFrom(...ACCOUNT_STATUSES), instanceArb).map(([pick, status, instance]) =>
    command(`set account#${pick} ${status} @${instance}`, async (run) => {
      const account = await pickAccount(run.db.kysely, run.tenantId, pick, 'open');
      if (!account) return;
      expectStatus('set account status', await inject(run, instance, 'PATCH', `/v3/accounts/${account.id}`, { status }), 200);
    }),
  ),
  fc.tuple(pickArb, instanceArb).map(([pick, instance]) =>
    command(`delete account without payments #${pick} @${instance}`, async (run) => {
      const account = await pickAccount(run.db.kysely, run.tenantId, pick, 'without payments');
      if (!account) return;
      expectStatus('delete account', await inject(run, instance, 'DELETE', `/v3/accounts/${account.id}`), 204);
    }),
  ),
];

/** About as many reads as writes. */
const commandArbs = [...Array.from({ length: 8 }, () => read), ...writes];

const datasetArb = fc.record({ accounts: fc.integer({ min: 2, max: 5 }), payments: fc.integer({ min: 20, max: 50 }), seed: fc.nat(999) });

describe('every filter shape against a model, with reads and writes interleaved on two instances', () => {
  it(
    'each page of each filtered list equals OFFSET over the rows that match at request time, edges of every bucket included',
    async () => {
      const database = await createTestDatabase();
      const other = database.openAnother({ poolMax: 3 });
      const a = await appOn(database, { countFold: { intervalMs: 500 } });
      const b = await appOn({ ...database, db: other }, { listTuning: DEEP_WAY, countFold: false });
      let runs = 0;
      try {
        await fc.assert(
          fc.asyncProperty(datasetArb, fc.commands(commandArbs, { maxCommands: 80, size: 'large' }), async (dataset, commands) => {
            // A fresh tenant per run (and per shrink attempt).
            const tenant = `shapes-${(runs += 1)}`;
            STATS.runs += 1;
            const { tenantId } = await seed(database.db, tenant, dataset.accounts, dataset.payments, `every-shape-${dataset.seed}`);
            const key = await createApiKey(database.db.kysely, tenantId, ['read', 'write']);
            const run: Run = { apps: [a, b], db: database.db, tenantId, key };
            await fc.asyncModelRun(() => ({ model: {}, real: run }), commands);
          }),
          { numRuns: RUNS, interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false, ...(FC_SEED === undefined ? {} : { seed: FC_SEED }) },
        );
      } finally {
        if (SHOW_STATS) process.stderr.write(`${JSON.stringify({ ...STATS, filters: Object.fromEntries(STATS.filters) }, null, 1)}\n`);
        await a.close();
        await b.close();
        await other.close();
        await database.drop();
      }
    },
    Math.max(180_000, SECONDS * 3000),
  );
});
