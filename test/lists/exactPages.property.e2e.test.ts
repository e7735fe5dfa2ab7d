import { randomBytes } from 'node:crypto';
import { redatePayment } from '../support/redatePayment.ts';
import { expectOffsetPageOf } from '../support/pageAgainstModel.ts';
import { expectStatus, pickAccount, pickPayment } from '../support/pickRecords.ts';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { describe, it } from 'vitest';
import { createApiKey } from '../../src/auth/tenantQueries.ts';
import { card } from '../support/cards.ts';
import { seed } from '../support/seedHelpers.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

/*
 * The list contract, checked against a model: whatever was read before, on whichever instance,
 * and whatever was written in between, every response is
 * exactly the rows OFFSET (page-1)*per_page LIMIT per_page of the whole filtered, ordered list
 * at the moment of the request, with total, last_page, from and to agreeing with that list.
 *
 * The truth is read straight from the tables with a plain select written here (not the list
 * code), ordered by the sort keys and then id in the last key's direction, and sliced.
 * Nothing is asserted about a walk as a whole (no "never twice"): OFFSET at request time
 * promises no such thing once rows move.
 */

const REDIS_URL = 'redis://127.0.0.1:6379';
const TEST_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------------
// Configurations: how the app instances that serve the reads are built. Nothing about pages is
// remembered between requests any more (the page-boundary cache this test was written against
// is gone); the table still runs one instance, one with Redis (REDIS_URL: shared rate-limit
// counters), and two instances sharing Redis, so that no configuration can hide a regression.
// ---------------------------------------------------------------------------------------------

interface Instances {
  /** Reads go to one of these (chosen by each command); writes go to the first. */
  apps: FastifyInstance[];
  close(): Promise<void>;
}

/** A Redis connection and a key prefix of its own; closing deletes the prefix's keys. */
function sharedRedis() {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const prefix = `test:exact-pages:${randomBytes(4).toString('hex')}:`;
  return {
    options: { redis, rateLimitPrefix: prefix },
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  };
}

/**
 * No page takes plain OFFSET from the start: every one is placed through bucket counts (or, for
 * lists without them, by deferred join or skip hops of 3 rows), from whichever end is nearer.
 * The test's lists are small; this is how they reach the code that serves deep pages.
 */
const DEEP_WAY = { plainOffsetUpTo: 0, skipHop: 3 };

const CONFIGURATIONS: Array<{ name: string; build: (database: TestDatabase) => Promise<Instances> }> = [
  {
    name: 'one instance',
    async build(database) {
      const app = await appOn(database);
      return { apps: [app], close: () => app.close() };
    },
  },
  {
    name: 'one instance with Redis, finding every page the deep way',
    async build(database) {
      const redis = sharedRedis();
      const app = await appOn(database, { ...redis.options, listTuning: DEEP_WAY });
      return {
        apps: [app],
        async close() {
          await app.close();
          await redis.close();
        },
      };
    },
  },
  {
    name: 'two instances sharing Redis, one of them finding every page the deep way',
    async build(database) {
      const redis = sharedRedis();
      const a = await appOn(database, { ...redis.options, listTuning: DEEP_WAY });
      const b = await appOn(database, redis.options);
      return {
        apps: [a, b],
        async close() {
          await a.close();
          await b.close();
          await redis.close();
        },
      };
    },
  },
];

// ---------------------------------------------------------------------------------------------
// List shapes and the truth about them
// ---------------------------------------------------------------------------------------------

type Direction = 'asc' | 'desc';

interface Shape {
  label: string;
  table: 'payments' | 'accounts';
  /** Needs an account id (chosen among the tenant's accounts when the read is made). */
  account?: 'filter' | 'path';
  /** The query string besides page and per_page. */
  query: (accountId: string) => string;
  /** Equality filters besides the tenant. */
  where: (accountId: string) => Array<[column: string, value: string]>;
  sort: Array<[column: string, direction: Direction]>;
}

const SHAPES: Shape[] = [
  { label: 'payments', table: 'payments', query: () => '', where: () => [], sort: [['created_at', 'asc']] },
  { label: 'payments sort=-created_at', table: 'payments', query: () => 'sort=-created_at', where: () => [], sort: [['created_at', 'desc']] },
  { label: 'payments sort=amount', table: 'payments', query: () => 'sort=amount', where: () => [], sort: [['amount', 'asc']] },
  { label: 'payments sort=-amount', table: 'payments', query: () => 'sort=-amount', where: () => [], sort: [['amount', 'desc']] },
  {
    label: 'payments sort=amount,-created_at',
    table: 'payments',
    query: () => 'sort=amount,-created_at',
    where: () => [],
    sort: [
      ['amount', 'asc'],
      ['created_at', 'desc'],
    ],
  },
  {
    label: 'payments filter[status]=authorized&sort=amount',
    table: 'payments',
    query: () => 'filter[status]=authorized&sort=amount',
    where: () => [['status', 'authorized']],
    sort: [['amount', 'asc']],
  },
  {
    label: 'payments filter[status]=succeeded',
    table: 'payments',
    query: () => 'filter[status]=succeeded',
    where: () => [['status', 'succeeded']],
    sort: [['created_at', 'asc']],
  },
  {
    label: 'payments filter[account_id]=…',
    table: 'payments',
    account: 'filter',
    query: (accountId) => `filter[account_id]=${accountId}`,
    where: (accountId) => [['account_id', accountId]],
    sort: [['created_at', 'asc']],
  },
  {
    label: 'accounts/{id}/payments sort=-amount',
    table: 'payments',
    account: 'path',
    query: () => 'sort=-amount',
    where: (accountId) => [['account_id', accountId]],
    sort: [['amount', 'desc']],
  },
  { label: 'accounts', table: 'accounts', query: () => '', where: () => [], sort: [['created_at', 'asc']] },
  { label: 'accounts sort=name', table: 'accounts', query: () => 'sort=name', where: () => [], sort: [['name', 'asc']] },
];

interface Run {
  apps: FastifyInstance[];
  database: TestDatabase;
  tenantId: string;
  key: string;
}

interface TruthRow {
  id: string;
  resource: unknown;
}

/** The whole filtered list in its total order, straight from the table; null when the scoping account is gone. */
async function truth(run: Run, shape: Shape, accountId: string): Promise<TruthRow[] | null> {
  const { kysely } = run.database.db;
  if (shape.account === 'path') {
    const account = await kysely.selectFrom('accounts').select('id').where('tenant_id', '=', run.tenantId).where('id', '=', accountId).executeTakeFirst();
    if (!account) return null;
  }
  let select = kysely
    .selectFrom(shape.table as 'payments')
    .select(['id', 'resource'])
    .where('tenant_id', '=', run.tenantId);
  for (const [column, value] of shape.where(accountId)) select = select.where(column as 'status', '=', value);
  for (const [column, direction] of shape.sort) select = select.orderBy(column as 'amount', direction);
  select = select.orderBy('id', shape.sort[shape.sort.length - 1][1]);
  const rows = await select.execute();
  return rows.map((r) => ({ id: r.id, resource: JSON.parse(r.resource) }));
}

function listPath(shape: Shape, accountId: string, perPage: number, page: number): string {
  const base = shape.account === 'path' ? `/v3/accounts/${accountId}/payments` : `/v3/${shape.table}`;
  const query = shape.query(accountId);
  return `${base}?${query ? `${query}&` : ''}per_page=${perPage}&page=${page}`;
}

const pathOf = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

async function inject(app: FastifyInstance, run: Run, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  const response = await app.inject({ method, url, headers: { authorization: `Bearer ${run.key}` }, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}

/**
 * One read, compared with the truth at that moment. Returns links.next (null at the end).
 * A mismatch names the URL, the instance, the strategy the app used, and expected vs actual,
 * ids shown with their position (1-based) in the current list.
 */
async function readAndCheck(run: Run, instance: number, shape: Shape, accountId: string, url: string): Promise<string | null> {
  const which = instance % run.apps.length;
  const response = await run.apps[which].inject({ method: 'GET', url, headers: { authorization: `Bearer ${run.key}` } });
  const all = await truth(run, shape, accountId);
  const where = `GET ${url} (instance ${which}, x-page-strategy ${String(response.headers['x-page-strategy'])})`;
  if (all === null) {
    if (response.statusCode !== 404) throw new Error(`${where}: the account is gone, expected 404, got ${response.statusCode}`);
    return null;
  }
  return expectOffsetPageOf(response, url, all, where, `rows of ${shape.label}`, (r) => r.resource);
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

interface Walker {
  shape: Shape;
  accountId: string;
  /** The next URL to read (links.next of the last page read). */
  next: string;
}

interface Model {
  walkers: Array<Walker | null>;
}

/**
 * Commands name their targets by pick numbers resolved when they run, so every sequence stays
 * valid while fast-check shrinks it: `payment#N` is the N-th (modulo) payment in that status in
 * id order, `account#N` the N-th (modulo) account in creation order, `page#N` page 1 + N modulo
 * (last_page + 3), `@i` the app instance that serves the read (modulo the configuration's count).
 * A write with no possible target does nothing.
 */
type Command = fc.AsyncCommand<Model, Run>;

function command(text: string, run: (model: Model, r: Run) => Promise<void>, check: (model: Model) => boolean = () => true): Command {
  return { check, run, toString: () => text };
}

const WALKERS = 2;

const shapeArb = fc.nat(SHAPES.length - 1);
const perPageArb = fc.integer({ min: 2, max: 7 });
const pickArb = fc.nat(99);
const instanceArb = fc.nat(1);
/** Spread like the seeded amounts (mostly small, a long tail), so new rows land anywhere in amount order. */
const amountArb = fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 2_000, max: 20_000 }), fc.integer({ min: 20_000, max: 200_000 }));
const NAMES = ['Aaron Abbott', 'Ada Lovelace', 'Ken Thompson', 'Mia Moss', 'Radia Perlman', 'Zoe Zimmer', 'van Rossum Records', 'Barbara Liskov'];
const nameArb = fc.constantFrom(...NAMES);

async function createPayment(run: Run, accountPick: number, amount: number, capture: boolean) {
  const account = await pickAccount(run.database.db.kysely, run.tenantId, accountPick, 'open');
  if (!account) return undefined;
  const created = await inject(run.apps[0], run, 'POST', '/v3/payments', { account_id: account.id, amount, currency: account.currency, capture, card: card() });
  expectStatus('create payment', created, 201);
  return created.body.data.id as string;
}

const startWalk = fc.tuple(fc.nat(WALKERS - 1), shapeArb, perPageArb, pickArb, instanceArb).map(([slot, s, perPage, accountPick, instance]) =>
  command(
    `walker ${slot}: start ${SHAPES[s].label} per_page=${perPage}${SHAPES[s].account ? ` account#${accountPick}` : ''} @${instance}`,
    async (model, run) => {
      const shape = SHAPES[s];
      const accountId = shape.account ? ((await pickAccount(run.database.db.kysely, run.tenantId, accountPick))?.id ?? 'acc_00000000000000000000000000') : '';
      const next = await readAndCheck(run, instance, shape, accountId, listPath(shape, accountId, perPage, 1));
      model.walkers[slot] = next ? { shape, accountId, next: pathOf(next) } : null;
    },
  ),
);
const followWalk = fc.tuple(fc.nat(WALKERS - 1), instanceArb).map(([slot, instance]) =>
  command(
    `walker ${slot}: follow links.next @${instance}`,
    async (model, run) => {
      const walker = model.walkers[slot]!;
      const next = await readAndCheck(run, instance, walker.shape, walker.accountId, walker.next);
      model.walkers[slot] = next ? { ...walker, next: pathOf(next) } : null;
    },
    (model) => model.walkers[slot] !== null,
  ),
);
const jump = fc.tuple(shapeArb, perPageArb, pickArb, pickArb, instanceArb).map(([s, perPage, pagePick, accountPick, instance]) =>
  command(
    `jump: ${SHAPES[s].label} per_page=${perPage} page#${pagePick}${SHAPES[s].account ? ` account#${accountPick}` : ''} @${instance}`,
    async (_model, run) => {
      const shape = SHAPES[s];
      const accountId = shape.account ? ((await pickAccount(run.database.db.kysely, run.tenantId, accountPick))?.id ?? 'acc_00000000000000000000000000') : '';
      const all = (await truth(run, shape, accountId)) ?? [];
      const lastPage = Math.max(1, Math.ceil(all.length / perPage));
      const page = 1 + (pagePick % (lastPage + 3)); // up to three pages past the end
      await readAndCheck(run, instance, shape, accountId, listPath(shape, accountId, perPage, page));
    },
  ),
);

const writes = [
  // Payment writes
  fc.tuple(pickArb, amountArb, fc.boolean()).map(([accountPick, amount, capture]) =>
    command(`create payment account#${accountPick} amount=${amount} ${capture ? 'captured' : 'authorized'}`, async (_model, run) => {
      await createPayment(run, accountPick, amount, capture);
    }),
  ),
  fc.tuple(pickArb, amountArb, fc.boolean(), pickArb, fc.constantFrom(0, 1, 1000, 86_400_000)).map(([accountPick, amount, capture, anchorPick, earlierMs]) =>
    command(
      `create payment account#${accountPick} amount=${amount} ${capture ? 'captured' : 'authorized'}, committed late: created_at = payment#${anchorPick}'s - ${earlierMs} ms`,
      async (_model, run) => {
        const id = await createPayment(run, accountPick, amount, capture);
        if (!id) return;
        const { kysely } = run.database.db;
        const anchors = await kysely
          .selectFrom('payments')
          .select('created_at')
          .where('tenant_id', '=', run.tenantId)
          .where('id', '!=', id)
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        if (anchors.length === 0) return;
        const createdAt = new Date(Date.parse(anchors[anchorPick % anchors.length].created_at) - earlierMs).toISOString();
        // Same row, earlier created_at, its stored JSON re-rendered by the app's own renderer:
        // what a transaction that took its timestamp early and committed late leaves behind
        // (its list change, or the buckets when it was folded, as if it had taken that timestamp).
        await kysely.transaction().execute(async (trx) => {
          const row = await trx.selectFrom('payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
          await redatePayment(trx, row, createdAt);
        });
      },
    ),
  ),
  fc.tuple(pickArb, fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined })).map(([pick, percent]) =>
    command(`capture authorized payment#${pick}${percent ? ` for ${percent}%` : ' in full'}`, async (_model, run) => {
      const payment = await pickPayment(run.database.db.kysely, run.tenantId, pick, ['authorized']);
      if (!payment) return;
      const body = percent ? { amount: Math.max(1, Math.floor((payment.amount * percent) / 100)) } : {};
      expectStatus('capture', await inject(run.apps[0], run, 'POST', `/v3/payments/${payment.id}/capture`, body), 200);
    }),
  ),
  pickArb.map((pick) =>
    command(`cancel pending/authorized payment#${pick}`, async (_model, run) => {
      const payment = await pickPayment(run.database.db.kysely, run.tenantId, pick, ['pending', 'authorized']);
      if (!payment) return;
      expectStatus('cancel', await inject(run.apps[0], run, 'POST', `/v3/payments/${payment.id}/cancel`), 200);
    }),
  ),
  fc.tuple(pickArb, fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined })).map(([pick, percent]) =>
    command(`refund succeeded/partially_refunded payment#${pick}${percent ? ` ${percent}% of what is left` : ' in full'}`, async (_model, run) => {
      const payment = await pickPayment(run.database.db.kysely, run.tenantId, pick, ['succeeded', 'partially_refunded']);
      if (!payment) return;
      const left = payment.amount - payment.amount_refunded;
      const body = percent ? { amount: Math.max(1, Math.floor((left * percent) / 100)) } : {};
      expectStatus('refund', await inject(run.apps[0], run, 'POST', `/v3/payments/${payment.id}/refunds`, body), 200);
    }),
  ),
  // Account writes
  fc.tuple(pickArb, nameArb).map(([pick, name]) =>
    command(`rename open account#${pick} to ${name}`, async (_model, run) => {
      const account = await pickAccount(run.database.db.kysely, run.tenantId, pick, 'open');
      if (!account) return;
      expectStatus('rename', await inject(run.apps[0], run, 'PATCH', `/v3/accounts/${account.id}`, { name }), 200);
    }),
  ),
  nameArb.map((name) =>
    command(`create account ${name}`, async (_model, run) => {
      expectStatus('create account', await inject(run.apps[0], run, 'POST', '/v3/accounts', { name, email: 'owner@example.com', currency: 'USD' }), 201);
    }),
  ),
  pickArb.map((pick) =>
    command(`delete account without payments #${pick}`, async (_model, run) => {
      const account = await pickAccount(run.database.db.kysely, run.tenantId, pick, 'without payments');
      if (!account) return;
      expectStatus('delete account', await inject(run.apps[0], run, 'DELETE', `/v3/accounts/${account.id}`), 204);
    }),
  ),
];

/** Reads weigh about as much as writes; walkers mostly step (a step is skipped while its walker is idle, and is then not shown). */
const commandArbs = [startWalk, startWalk, ...Array.from({ length: 8 }, () => followWalk), jump, jump, jump, ...writes];

// ---------------------------------------------------------------------------------------------

/** Runs per configuration: EXACT_PAGES_RUNS (default 20; the `pgbouncer` project runs fewer). */
const RUNS = Number(process.env.EXACT_PAGES_RUNS ?? 20);

const datasetArb = fc.record({ accounts: fc.integer({ min: 3, max: 5 }), payments: fc.integer({ min: 30, max: 60 }), seed: fc.nat(999) });

describe('list pages against a model of the tables, with reads and writes interleaved', () => {
  for (const configuration of CONFIGURATIONS) {
    it(
      `every page equals OFFSET on the list at request time, whatever was read or written before (${configuration.name})`,
      async () => {
        const database = await createTestDatabase();
        let instances: Instances | undefined;
        let runs = 0;
        try {
          instances = await configuration.build(database);
          const { apps } = instances;
          await fc.assert(
            fc.asyncProperty(datasetArb, fc.commands(commandArbs, { maxCommands: 100, size: 'medium' }), async (dataset, commands) => {
              // Each run (and each shrink attempt) gets a fresh tenant: no boundaries, no rows from before.
              const tenant = `exact-${(runs += 1)}`;
              const { tenantId } = await seed(database.db, tenant, dataset.accounts, dataset.payments, `exact-pages-${dataset.seed}`);
              const key = await createApiKey(database.db.kysely, tenantId, ['read', 'write']);
              const run: Run = { apps, database, tenantId, key };
              await fc.asyncModelRun(() => ({ model: { walkers: Array.from({ length: WALKERS }, () => null) }, real: run }), commands);
            }),
            // Bounded: a failure is found within a few runs and shrinks in a few dozen; a slow machine
            // stops generating after a minute rather than time out (a failure found by then is still reported).
            { numRuns: RUNS, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: false },
          );
        } finally {
          await instances?.close();
          await database.drop();
        }
      },
      TEST_TIMEOUT_MS,
    );
  }
});
