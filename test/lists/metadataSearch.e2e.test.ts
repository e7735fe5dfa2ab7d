import fc from 'fast-check';
import { entriesBehind } from '../../src/lists/sql/entriesCurrent.ts';
import { foldAll } from '../support/foldAll.ts';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, CARDS } from '../support/cards.ts';
import { appOn, createTestApp, type TestContext } from '../support/testApp.ts';

/*
 * Metadata search (`filter[metadata][key]=a,b`), checked against a model kept here: every list
 * answer is exactly the slice OFFSET (page-1)*per_page LIMIT per_page of all the tenant's records
 * whose metadata has each key searched with one of its values (exact strings), filtered and ordered
 * as asked, with the exact total, while accounts' metadata is replaced and records are created and
 * deleted in between. Reads go to instances that find pages in every way there is: the service's
 * own (its plan chosen by the entry counts, lists/plan/metadataPlans.ts), every page the deep way
 * (deferred join / skip hops of 3 rows), and each of the two plans fixed (the probe walk of the
 * list's index, the drive from the entries), first pages and deep ones. One value (`x`) is common
 * and the others rare, so the counts choose both plans; the test checks it reached each. Each run
 * is a new tenant, so earlier tenants' entries of the same keys and values are in the tables too.
 *
 * A search of one key alone takes its total from the maintained value counts (migration 0020),
 * kept by every write of the entries: `totals` reads such a total on both lists from one of the
 * instances and holds it to plain count(*) over the records and to the model, and holds every
 * maintained count of the tenant to count(*) of its entries, grouped.
 */

const DEEP_WAY = { plainOffsetUpTo: 0, skipHop: 3 };
const WAYS = {
  counts: undefined,
  deep: DEEP_WAY,
  probe: { plainOffsetUpTo: 2000, skipHop: 50_000, metadataPlan: 'probe' as const },
  drive: { plainOffsetUpTo: 2000, skipHop: 50_000, metadataPlan: 'drive' as const },
  'deep probe': { ...DEEP_WAY, metadataPlan: 'probe' as const },
  'deep drive': { ...DEEP_WAY, metadataPlan: 'drive' as const },
};
type Way = keyof typeof WAYS;
const KEYS = ['plan', 'a.b:c-d_e', 'Plan'];
/** Few values so searches hit; `x`/`X` and `x y` tell exact comparison from anything looser. */
const VALUES = ['x', 'X', 'x y', 'ünï'];

type Metadata = Record<string, string>;
type Resource = { id: string; created_at: string; metadata: Metadata; status: string; currency: string } & Record<string, unknown>;
type Sort = Array<[field: string, direction: 'asc' | 'desc']>;

/** `x` common, the others rare: the counts choose the probe walk for the one and the drive for the others. */
const valueArb = fc.oneof({ weight: 6, arbitrary: fc.constant('x') }, { weight: 1, arbitrary: fc.constantFrom(...VALUES.slice(1)) });
const metadataArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), valueArb, { minKeys: 1, maxKeys: 3 }) },
);
/** Another filter beside the search, one time in four (most reads must still find records). */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
/** One key (sometimes two), each with one to three values (now and then one no record has). */
const termArb = fc.tuple(
  fc.constantFrom(...KEYS),
  fc.uniqueArray(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...VALUES) }, { weight: 1, arbitrary: fc.constant('nope') }), { minLength: 1, maxLength: 3 }),
);
const searchArb = fc.oneof(
  { weight: 3, arbitrary: termArb.map((term) => [term]) },
  // One key, one value: in created_at order over the whole list, read in its entries' order (entryOrderPage.ts).
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...KEYS), valueArb).map(([key, value]) => [[key, [value]] as [string, string[]]]) },
  { weight: 1, arbitrary: fc.uniqueArray(termArb, { minLength: 2, maxLength: 2, selector: ([key]) => key }) },
);

const ACCOUNT_STATUSES = ['active', 'suspended', 'closed'];
const PAYMENT_STATUSES = ['succeeded', 'authorized', 'failed', 'canceled', 'refunded', 'partially_refunded'];
/** An any-of status filter: each list takes those of its own statuses (none: no status filter). */
const statusesArb = fc.uniqueArray(fc.constantFrom(...ACCOUNT_STATUSES, ...PAYMENT_STATUSES), { minLength: 1, maxLength: 3 });
const accountArb = fc.record({ kind: fc.constant('account' as const), metadata: metadataArb, name: fc.stringMatching(/^[a-z]{1,3}$/) });
const paymentArb = fc.record({
  kind: fc.constant('payment' as const),
  pick: fc.nat(),
  metadata: metadataArb,
  amount: fc.integer({ min: 1, max: 5 }),
  currency: fc.constantFrom('EUR', 'USD'),
  outcome: fc.constantFrom('succeeded', 'authorized', 'failed'),
  brand: fc.constantFrom('visa', 'mastercard', 'amex'),
});
const commandArb = fc.oneof(
  { weight: 2, arbitrary: accountArb },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      pick: fc.nat(),
      // Sometimes the status alone: its metadata's counts move between statuses (migration 0024).
      metadata: fc.option(metadataArb, { nil: undefined, freq: 3 }),
      status: fc.constantFrom(undefined, 'active', 'suspended', 'closed'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: paymentArb },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('transition' as const),
      pick: fc.nat(),
      action: fc.constantFrom('capture', 'cancel', 'refund'),
      refund: fc.integer({ min: 1, max: 5 }),
      // A capture of less than authorized lowers the amount the payment's entries carry (migration 0030).
      capture: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined, freq: 4 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('totals' as const),
      key: fc.constantFrom(...KEYS),
      values: fc.uniqueArray(fc.constantFrom(...VALUES, 'nope'), { minLength: 1, maxLength: 3 }),
      statuses: sometimes(statusesArb),
      way: fc.constantFrom(...(Object.keys(WAYS) as Way[])),
    }),
  },
  {
    // About the share of commands reads had before transitions came in (the reach checks below count on it).
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      list: fc.constantFrom('accounts', 'payments', 'account payments'),
      search: searchArb,
      status: sometimes(statusesArb),
      currency: sometimes(fc.constantFrom('EUR', 'USD')),
      // Payments only: card brands and an amount range, which the entries carry (migration 0030).
      brands: sometimes(fc.uniqueArray(fc.constantFrom('visa', 'mastercard', 'amex'), { minLength: 1, maxLength: 2 })),
      amount: fc.option(fc.tuple(fc.constantFrom('gte', 'gt', 'lte', 'lt'), fc.integer({ min: 1, max: 5 })), { nil: undefined, freq: 2 }),
      created: sometimes(fc.tuple(fc.constantFrom('gte', 'gt', 'lte', 'lt'), fc.nat())),
      sort: fc.nat(),
      perPage: fc.integer({ min: 1, max: 3 }),
      page: fc.nat(),
      way: fc.oneof({ weight: 5, arbitrary: fc.constant<Way>('counts') }, { weight: 5, arbitrary: fc.constantFrom(...(Object.keys(WAYS) as Way[])) }),
      viaExport: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      pick: fc.nat(),
    }),
  },
);
type Command = typeof commandArb extends fc.Arbitrary<infer C> ? C : never;
type Read = Extract<Command, { kind: 'read' }>;

const SORTS: Record<'accounts' | 'payments', Array<{ query: string; order: Sort }>> = {
  accounts: [
    { query: 'created_at', order: [['created_at', 'asc']] },
    { query: '-created_at', order: [['created_at', 'desc']] },
    { query: 'name', order: [['name', 'asc']] },
    { query: '-name', order: [['name', 'desc']] },
  ],
  payments: [
    { query: 'created_at', order: [['created_at', 'asc']] },
    { query: '-created_at', order: [['created_at', 'desc']] },
    { query: 'amount', order: [['amount', 'asc']] },
    { query: '-amount', order: [['amount', 'desc']] },
    {
      query: 'amount,-created_at',
      order: [
        ['amount', 'asc'],
        ['created_at', 'desc'],
      ],
    },
  ],
};

/** The list's total order: the sort keys, then id in the last key's direction (as the API documents). */
function compareBy(order: Sort) {
  const keys: Sort = [...order, ['id', order[order.length - 1][1]]];
  return (a: Resource, b: Resource) => {
    for (const [field, direction] of keys) {
      const x = a[field] as string | number;
      const y = b[field] as string | number;
      if (x !== y) return (x < y ? -1 : 1) * (direction === 'asc' ? 1 : -1);
    }
    return 0;
  };
}

/** The statuses of `statuses` that `list` has; undefined when none (no status filter then). */
function statusesOf(list: 'accounts' | 'payments', statuses: string[] | undefined): string[] | undefined {
  const own = statuses?.filter((s) => (list === 'accounts' ? ACCOUNT_STATUSES : PAYMENT_STATUSES).includes(s));
  return own && own.length > 0 ? own : undefined;
}

const pick = <T>(items: T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

describe('metadata search: filter[metadata][key]=a,b', () => {
  let t: TestContext;
  const apps = new Map<Way, FastifyInstance>();
  let runs = 0;
  /**
   * Reads whose answer held records, and of those, pages past the first; reads of the service's own
   * way for which its counts choose the probe walk, and the drive: the model test must reach each.
   */
  const reached = { found: 0, deeper: 0, probe: 0, drive: 0, entries: 0, entriesBeside: 0 };

  beforeAll(async () => {
    t = await createTestApp();
    for (const [way, listTuning] of Object.entries(WAYS) as Array<[Way, (typeof WAYS)[Way]]>) {
      apps.set(way, listTuning ? await appOn(t.database, { listTuning }) : t.app);
    }
  });
  afterAll(async () => {
    for (const app of apps.values()) if (app !== t.app) await app.close();
    await t.close();
  });

  const call = async (app: FastifyInstance, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, payload?: unknown) => {
    const response = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${key}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return response;
  };

  /** One list read, checked against the model: the page (or the whole export) and the total. */
  async function checkRead(key: string, accounts: Map<string, Resource>, payments: Map<string, Resource>, read: Read, tenantId: string) {
    const table = read.list === 'accounts' ? 'accounts' : 'payments';
    const scopeAccount = read.list === 'account payments' ? pick([...accounts.keys()], read.pick) : undefined;
    if (read.list === 'account payments' && scopeAccount === undefined) return;
    const all = [...(table === 'accounts' ? accounts : payments).values()].filter((r) => scopeAccount === undefined || r.account_id === scopeAccount);
    const params: string[] = read.search.map(([k, values]) => `filter[metadata][${encodeURIComponent(k)}]=${values.map(encodeURIComponent).join(',')}`);
    let expected = all.filter((r) => read.search.every(([k, values]) => Object.hasOwn(r.metadata, k) && values.includes(r.metadata[k])));
    const statuses = statusesOf(table, read.status);
    if (statuses) {
      params.push(`filter[status]=${statuses.join(',')}`);
      expected = expected.filter((r) => statuses.includes(r.status));
    }
    // The filters beside the search that a payment's entries answer (migration 0030; created_at since 0023), or an account's (created_at).
    let inEntries = 0;
    if (read.currency) {
      params.push(`filter[currency]=${read.currency}`);
      expected = expected.filter((r) => r.currency === read.currency);
      if (table === 'payments') inEntries++;
    }
    if (read.brands && table === 'payments') {
      const brands: string[] = read.brands;
      params.push(`filter[card_brand]=${brands.join(',')}`);
      expected = expected.filter((r) => brands.includes((r.card as { brand: string }).brand));
      inEntries++;
    }
    if (read.amount && table === 'payments') {
      const [op, at] = read.amount;
      params.push(`filter[amount][${op}]=${at}`);
      const holds = { gte: (a: number) => a >= at, gt: (a: number) => a > at, lte: (a: number) => a <= at, lt: (a: number) => a < at }[op];
      expected = expected.filter((r) => holds(r.amount as number));
      inEntries++;
    }
    const bound = read.created && pick(all, read.created[1])?.created_at;
    if (read.created && bound) {
      inEntries++;
      const op = read.created[0];
      params.push(`filter[created_at][${op}]=${bound}`);
      const holds = { gte: (c: string) => c >= bound, gt: (c: string) => c > bound, lte: (c: string) => c <= bound, lt: (c: string) => c < bound }[op];
      expected = expected.filter((r) => holds(r.created_at));
    }
    const sort = SORTS[table][read.sort % SORTS[table].length];
    params.push(`sort=${sort.query}`);
    expected.sort(compareBy(sort.order));
    const path = scopeAccount ? `/v3/accounts/${scopeAccount}/payments` : `/v3/${table}`;
    const app = apps.get(read.way) as FastifyInstance;

    if (read.viaExport) {
      const response = await call(app, 'GET', `${path}/export?${params.join('&')}`, key);
      expect(response.statusCode, response.body).toBe(200);
      const lines = response.body.split('\n').filter((l) => l !== '');
      const closing = JSON.parse(lines.pop() as string);
      expect(lines.map((l) => JSON.parse(l))).toEqual(expected);
      expect(closing).toEqual({ export: { complete: true, count: expected.length } });
      return;
    }
    const lastPage = Math.max(1, Math.ceil(expected.length / read.perPage));
    const page = 1 + (read.page % (lastPage + 1)); // sometimes one past the last
    // A search over the whole list in created_at order (a payment's in amount order too, migration 0032): every way without a fixed
    // plan reads it in its entries' order (entryOrderPage.ts), any values of any keys, beside filters the entries answer: a
    // payment's all (statuses since 0032), an account's a created_at range, or else any of some statuses alone (each record tested).
    const besides = params.length - read.search.length - 1; // the sort is one of them
    const answered = table === 'payments' || (statuses ? besides === 1 : besides === inEntries);
    const entryOrder =
      (read.way === 'counts' || read.way === 'deep') &&
      answered &&
      scopeAccount === undefined &&
      sort.order.length === 1 &&
      (sort.order[0][0] === 'created_at' || (table === 'payments' && sort.order[0][0] === 'amount'));
    if (entryOrder && expected.length > (page - 1) * read.perPage) reached.entries++;
    if (entryOrder && inEntries > 0 && expected.length > (page - 1) * read.perPage) reached.entriesBeside++;
    else if (read.way === 'counts' && expected.length > (page - 1) * read.perPage) {
      // The plan the service's counts choose (metadataPlans.ts): the tenant's records in the list, the least entry count of a searched key.
      const records = [...(table === 'accounts' ? accounts : payments).values()];
      const entries = Math.min(
        ...read.search.map(([k, values]) => records.filter((r) => Object.hasOwn(r.metadata, k) && values.includes(r.metadata[k])).length),
      );
      // The matches are counted (value × status counts) for one key, alone or with statuses, over the whole list; else taken to be the entries.
      const counted = scopeAccount === undefined && read.search.length === 1 && params.length === (statuses ? 3 : 2);
      const matches = counted ? expected.length : entries;
      // A first page (this instance's every page here): the skip is its OFFSET.
      const skip = (page - 1) * read.perPage;
      reached[matches > 0 && (skip + read.perPage) * records.length <= 2 * entries * matches ? 'probe' : 'drive']++;
    }
    if (expected.length > (page - 1) * read.perPage) reached.found++;
    if (page > 1 && expected.length > (page - 1) * read.perPage) reached.deeper++;
    // A move of a payment's status or amount waiting to be folded sends such a search to the payments instead (entriesCurrent.ts).
    const searched = { sort: [], conditions: read.search.map(([key, values]) => ({ column: 'payment_metadata', match: 'metadata' as const, key, values })) };
    const behind = path === '/v3/payments' && (await entriesBehind(t.database.db.kysely, tenantId, searched));
    const response = await call(app, 'GET', `${path}?${params.join('&')}&per_page=${read.perPage}&page=${page}`, key);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    const where = `${path}?${params.join('&')} page ${page}/${read.perPage}`;
    expect(body.meta.total, where).toBe(expected.length);
    expect(body.data, where).toEqual(expected.slice((page - 1) * read.perPage, page * read.perPage));
    if (entryOrder && !behind) expect(response.headers['x-page-strategy'], where).toBe(expected.length > (page - 1) * read.perPage ? 'entries' : 'past-end');
  }

  /**
   * The total of one key's search, alone or with any of some statuses (from the value counts, kept
   * per status: migration 0024), on both lists, against plain count(*) of the records and the
   * model; then every maintained count of the tenant (its shards summed), per status, against
   * count(*) of its entries joined with their records.
   */
  async function checkTotals(
    tenantId: string,
    key: string,
    lists: Record<'accounts' | 'payments', Map<string, Resource>>,
    totals: Extract<Command, { kind: 'totals' }>,
  ) {
    const kysely = t.database.db.kysely;
    const app = apps.get(totals.way) as FastifyInstance;
    for (const list of ['accounts', 'payments'] as const) {
      const statuses = statusesOf(list, totals.statuses);
      const query = `filter[metadata][${encodeURIComponent(totals.key)}]=${totals.values.map(encodeURIComponent).join(',')}${statuses ? `&filter[status]=${statuses.join(',')}` : ''}&per_page=1`;
      const response = await call(app, 'GET', `/v3/${list}?${query}`, key);
      expect(response.statusCode, response.body).toBe(200);
      const entries = list === 'accounts' ? 'account_metadata' : 'payment_metadata';
      const inStatuses = statuses ? sql`and status in (${sql.join(statuses)})` : sql``;
      const counted = await sql<{ n: number }>`select count(*) as n from ${sql.table(list)} where tenant_id = ${tenantId} ${inStatuses} and id in
        (select record_id from ${sql.table(entries)} where tenant_id = ${tenantId} and key = ${totals.key} and value in (${sql.join(totals.values)}))`.execute(
        kysely,
      );
      const modelled = [...lists[list].values()].filter(
        (r) => Object.hasOwn(r.metadata, totals.key) && totals.values.includes(r.metadata[totals.key]) && (!statuses || statuses.includes(r.status)),
      ).length;
      expect(response.json().meta.total, `${list}?${query}`).toBe(Number(counted.rows[0].n));
      expect(response.json().meta.total, `${list}?${query}`).toBe(modelled);
    }
    type Kept = { list: string; key: string; value: string; status: string; n: number };
    // The kept counts are the counts once every change is folded (the totals above were read with changes waiting).
    await foldAll(t.database.db);
    const kept = await sql<Kept>`select list, key, value, status, sum(n) as n from metadata_value_counts
      where tenant_id = ${tenantId} group by list, key, value, status having sum(n) <> 0 order by list, key, value, status`.execute(kysely);
    const counted = await sql<Kept>`select list, key, value, status, count(*) as n from (
        select 'accounts' as list, e.key, e.value, r.status from account_metadata e join accounts r on r.id = e.record_id and r.tenant_id = e.tenant_id
          where e.tenant_id = ${tenantId}
        union all select 'payments' as list, e.key, e.value, r.status from payment_metadata e join payments r on r.id = e.record_id and r.tenant_id = e.tenant_id
          where e.tenant_id = ${tenantId}) as e
      group by list, key, value, status order by list, key, value, status`.execute(kysely);
    const plain = (rows: Kept[]) => rows.map((r) => ({ ...r, n: Number(r.n) }));
    expect(plain(kept.rows)).toEqual(plain(counted.rows));
  }

  async function runCommands(commands: Command[]) {
    const { id: tenantId, key } = await t.tenant(`metadata-search-${runs++}`);
    const accounts = new Map<string, Resource>();
    const payments = new Map<string, Resource>();
    for (const command of commands) {
      switch (command.kind) {
        case 'account': {
          const body = { name: command.name, email: 'a@example.com', currency: 'EUR', metadata: command.metadata };
          const response = await call(t.app, 'POST', '/v3/accounts', key, body);
          expect(response.statusCode, response.body).toBe(201);
          const created = response.json().data as Resource;
          accounts.set(created.id, created);
          break;
        }
        case 'patch': {
          const id = pick([...accounts.keys()], command.pick);
          if (!id) break;
          if (command.metadata === undefined && command.status === undefined) break;
          const body = { ...(command.metadata !== undefined ? { metadata: command.metadata } : {}), ...(command.status ? { status: command.status } : {}) };
          const response = await call(t.app, 'PATCH', `/v3/accounts/${id}`, key, body);
          // A closed account cannot be changed.
          expect(response.statusCode, response.body).toBe(accounts.get(id)?.status === 'closed' ? 409 : 200);
          if (response.statusCode !== 200) break;
          accounts.set(id, response.json().data);
          break;
        }
        case 'delete': {
          const id = pick([...accounts.keys()], command.pick);
          if (!id) break;
          const hasPayments = [...payments.values()].some((p) => p.account_id === id);
          const response = await call(t.app, 'DELETE', `/v3/accounts/${id}`, key);
          expect(response.statusCode, response.body).toBe(hasPayments ? 409 : 204);
          if (!hasPayments) accounts.delete(id);
          break;
        }
        case 'payment': {
          const account = pick([...accounts.values()], command.pick);
          if (account?.status !== 'active') break;
          const number = command.outcome === 'failed' ? CARDS.declined : CARDS[command.brand];
          const body = {
            account_id: account.id,
            amount: command.amount,
            currency: command.currency,
            metadata: command.metadata,
            capture: command.outcome !== 'authorized',
            card: card(number),
          };
          const response = await call(t.app, 'POST', '/v3/payments', key, body);
          expect(response.statusCode, response.body).toBe(201);
          const created = response.json().data as Resource;
          expect(created.status).toBe(command.outcome);
          payments.set(created.id, created);
          break;
        }
        case 'transition': {
          // A payment's status change moves its metadata's counts between statuses (migration 0024); only legal ones are sent.
          const payment = pick([...payments.values()], command.pick);
          if (!payment) break;
          const refundable = (payment.status === 'succeeded' || payment.status === 'partially_refunded') && command.action === 'refund';
          if (!(payment.status === 'authorized' && command.action !== 'refund') && !refundable) break;
          const left = (payment.amount as number) - (payment.amount_refunded as number);
          const lower =
            command.action === 'capture' && command.capture !== undefined ? { amount: Math.min(command.capture, payment.amount as number) } : undefined;
          const body = command.action === 'refund' ? { amount: Math.min(command.refund, left) } : lower;
          const path = command.action === 'refund' ? 'refunds' : command.action;
          const response = await call(t.app, 'POST', `/v3/payments/${payment.id}/${path}`, key, body);
          expect(response.statusCode, response.body).toBeLessThan(300);
          const changed = await call(t.app, 'GET', `/v3/payments/${payment.id}`, key);
          payments.set(payment.id, changed.json().data);
          break;
        }
        case 'read':
          await checkRead(key, accounts, payments, command, tenantId);
          break;
        case 'totals':
          await checkTotals(tenantId, key, { accounts, payments }, command);
          break;
      }
    }
  }

  it('lists exactly the records whose metadata matches, with every other filter and sort, at any depth, as metadata changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(accountArb, { minLength: 3, maxLength: 6 }),
        fc.array(paymentArb, { minLength: 10, maxLength: 25, size: 'max' }),
        fc.array(commandArb, { minLength: 30, maxLength: 80, size: 'max' }),
        (accounts, payments, then) => runCommands([...accounts, ...payments, ...then]),
      ),
      { numRuns: 25 },
    );
    // About 60 and 20 in a run: far enough from these that random runs do not fail them. Each plan
    // is reached a few times a run (drive: 3 seen at the least), so each must be reached twice.
    expect(reached.found).toBeGreaterThan(20);
    expect(reached.deeper).toBeGreaterThan(5);
    expect(reached.probe, JSON.stringify(reached)).toBeGreaterThan(1);
    expect(reached.drive, JSON.stringify(reached)).toBeGreaterThan(1);
    // Reads in the entries' order are rarer since transitions and status sets came in (3–7 a run seen): the bound leaves room.
    expect(reached.entries, JSON.stringify(reached)).toBeGreaterThan(1);
    // Of those, beside a payment's currency, card brands or amount range (or a created_at range), counted and paged in the entries.
    expect(reached.entriesBeside, JSON.stringify(reached)).toBeGreaterThan(0);
  }, 240_000);

  it('finds a record by a value of 500 characters, and not by a prefix of it', async () => {
    const { key } = await t.tenant('metadata-long');
    const long = `${'é'.repeat(499)}z`;
    const created = (await t.send('POST', '/v3/accounts', key, { name: 'long', email: 'l@example.com', currency: 'EUR', metadata: { note: long } })).body.data;
    const found = await t.get(`/v3/accounts?filter[metadata][note]=${encodeURIComponent(long)}`, key);
    expect(found.status).toBe(200);
    expect(found.body.data.map((a: Resource) => a.id)).toEqual([created.id]);
    expect(found.body.meta.total).toBe(1);
    const prefix = await t.get(`/v3/accounts?filter[metadata][note]=${encodeURIComponent(long.slice(0, 499))}`, key);
    expect(prefix.body.meta.total).toBe(0);
  });

  it('refuses a key no metadata can have, naming the key rule, and too many keys or values, on lists and exports', async () => {
    const { key } = await t.tenant('metadata-mistakes');
    const codes = async (query: string) => {
      const list = await t.get(`/v3/payments?${query}`, key);
      const exported = await t.get(`/v3/payments/export?${query}`, key);
      expect([list.status, exported.status]).toEqual([422, 422]);
      expect(exported.body.codes).toEqual(list.body.codes);
      return list.body;
    };
    const badKey = await codes(`filter[metadata][${encodeURIComponent('no spaces')}]=x`);
    expect(badKey.codes).toEqual({ 'filter[metadata][no spaces]': ['invalid_key'] });
    expect(badKey.errors['filter[metadata][no spaces]'][0]).toContain('1–40 letters, digits or _ . : -');
    expect((await codes(`filter[metadata][${'k'.repeat(41)}]=x`)).codes).toEqual({ [`filter[metadata][${'k'.repeat(41)}]`]: ['invalid_key'] });
    expect((await codes('filter[metadata]=x')).codes).toEqual({ 'filter[metadata]': ['malformed_filter'] });
    expect((await codes('filter[metadata][plan]=')).codes).toEqual({ 'filter[metadata][plan]': ['invalid_filter_value'] });
    expect((await codes('filter[metadata][plan]=a,,b')).codes).toEqual({ 'filter[metadata][plan]': ['invalid_filter_value'] });
    const values = Array.from({ length: 51 }, (_, i) => `v${i}`).join(',');
    expect((await codes(`filter[metadata][plan]=${values}`)).codes).toEqual({ 'filter[metadata][plan]': ['too_many_values'] });
    const keys = Array.from({ length: 51 }, (_, i) => `filter[metadata][k${i}]=v`).join('&');
    expect((await codes(keys)).codes).toEqual({ 'filter[metadata]': ['too_many_keys'] });
  });
});
