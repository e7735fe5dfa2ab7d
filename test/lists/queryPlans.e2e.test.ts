import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';
import { explainPlan } from '../../scripts/explain/explainPlan.ts';
import { boundColumns, LIST_SHAPES, parsedQuery, shapeQueries } from '../../scripts/explain/listQueryShapes.ts';
import { accountResourcesSelect } from '../../src/accounts/accountRepresentation.ts';
import { driverFlagsOf } from '../../src/db/driverFlags.ts';
import { parseQueryString } from '../../src/http/parseQueryString.ts';
import { deferredJoinPageSelect, hopSelect } from '../../src/lists/sql/listPageQueries.ts';
import { withRangesWritten } from '../../src/lists/plan/rangePlans.ts';
import { totalIsValueCount } from '../../src/lists/plan/metadataPlans.ts';
import { parseListQuery, type RawListQuery } from '../../src/lists/request/parseListQuery.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import { readsInEntryOrder } from '../../src/lists/plan/entryOrderPlans.ts';
import { testedInEntries } from '../../src/lists/plan/testedInEntries.ts';
import { offsetPageQuery, listTotalSelect, bucketPageQuery } from '../../src/lists/sql/listStatements.ts';
import { reversed } from '../../src/lists/plan/totalOrder.ts';

// PostgreSQL is told to avoid seq scans and sorts wherever an index allows (the test tables are
// tiny); a plan that still has one shows what no index can serve.
describe(`list query plans (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  const explain = (query: Parameters<typeof explainPlan>[2]) => explainPlan(database.db.kysely, database.db.dialect, query, { forceIndexes: true });
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it.each(LIST_SHAPES)('$request never reads a table whole, by any page strategy or count', async (shape) => {
    for (const { label, query } of shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect)) {
      const plan = await explain(query);
      expect(plan.fullScan, `${label}:\n${plan.lines.join('\n')}`).toBe(false);
      expect(plan.indexes.length, `${label} uses an index:\n${plan.lines.join('\n')}`).toBeGreaterThan(0);
    }
  });

  it('writes no statement whose text begins with a comment: driver flags travel beside the text (db/driverFlags.ts)', () => {
    for (const shape of LIST_SHAPES) {
      for (const { label, query } of shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect)) {
        expect(query.compile().sql.trimStart().startsWith('/*'), `${shape.request}: ${label}`).toBe(false);
      }
    }
  });

  it('expands a page’s accounts (expand[]=account) by primary key, never reading the table whole', async () => {
    const plan = await explain(accountResourcesSelect(database.db.kysely, 'ten_x', ['acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C', 'acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0D']));
    expect(plan.fullScan, plan.lines.join('\n')).toBe(false);
    expect(plan.indexes.length, plan.lines.join('\n')).toBeGreaterThan(0);
  });

  it.runIf(TEST_DIALECT === 'sqlite').each(LIST_SHAPES.filter((s) => s.walks))(
    '$request walks the slice’s index in the sort’s order when most rows are in range, sorting nothing (SQLite)',
    async (shape) => {
      const walks = shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect).filter((q) => q.strategy?.startsWith('walk'));
      expect(walks.length).toBe(6);
      for (const { label, query } of walks) {
        const plan = await explain(query);
        const why = `${label}:\n${plan.lines.join('\n')}`;
        expect(plan.sortBeforeLimit, why).toBe(false);
        expect(plan.indexes, why).toEqual([shape.walks]);
      }
    },
  );

  it.runIf(TEST_DIALECT === 'sqlite').each(LIST_SHAPES.filter((s) => s.keyed))(
    '$request counts and sorts a keyed filter’s rows in its own index, or walks the sort’s index testing it (SQLite, keyedFilters.ts)',
    async (shape) => {
      const plans = shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect).filter((q) => q.strategy?.startsWith('keyed'));
      expect(plans.length).toBe(5);
      for (const { label, strategy, query } of plans) {
        const plan = await explain(query);
        const why = `${label}:\n${plan.lines.join('\n')}`;
        if (strategy === 'keyed')
          expect(
            plan.indexes.filter((i) => !i.startsWith('sqlite_autoindex')),
            why,
          ).toEqual([shape.keyed?.index]);
        else {
          expect(plan.indexes, why).toEqual([shape.keyed?.walks]);
          expect(plan.sortBeforeLimit, why).toBe(false);
        }
      }
    },
  );

  it.each(LIST_SHAPES.filter((s) => s.probes))(
    '$request walks the list’s index in its order when its values are common, each row’s entry probed by primary key, sorting nothing',
    async (shape) => {
      const probes = shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect).filter((q) => q.strategy?.startsWith('probe'));
      expect(probes.length).toBe(8);
      for (const { label, query } of probes) {
        const plan = await explain(query);
        const why = `${label}:\n${plan.lines.join('\n')}`;
        expect(plan.sortBeforeLimit, why).toBe(false);
        expect(plan.indexes, why).toContain(shape.probes);
        expect(plan.fullScan, why).toBe(false);
        // Each row's probe: a search of the entry table by its key (SQLite may take its record index, which holds the key too).
        const entries = shape.table === 'payments' ? 'payment_metadata' : 'account_metadata';
        expect(
          plan.indexes.some((i) => i.startsWith(entries)),
          why,
        ).toBe(true);
        // One entry found by (tenant, key, value, record_id) (migration 0023 keeps that index beside the key in created_at order): no run of the value’s entries read per row.
        const probed = plan.lines.filter((l) => l.includes(entries));
        expect(probed.length, why).toBeGreaterThan(0);
        for (const line of probed) expect(line, why).toMatch(/record_id/);
      }
    },
  );

  // Migrations 0020, 0024: a metadata search's plan counts, and the total of one key's search, alone
  // or with a status filter, are sums of maintained value counts: read by their primary key, no entry counted.
  it.each(LIST_SHAPES.filter((s) => s.probes))(
    '$request reads its plan counts (and a one-key search its total) from metadata_value_counts, counting no entries',
    async (shape) => {
      const queries = shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect).filter(
        (q) => q.label.startsWith('plan counts') || q.label === 'total (metadata_value_counts)',
      );
      const oneKeyAlone = totalIsValueCount({ tenantId: 'ten_x', ...(shape.perAccount ? { accountId: 'acc_x' } : {}) }, parsedQuery(shape));
      expect(queries.length).toBe(oneKeyAlone ? 2 : 1);
      for (const { label, query } of queries) {
        const plan = await explain(query);
        const why = `${label}:\n${plan.lines.join('\n')}`;
        expect(plan.indexes, why).toContain('metadata_value_counts_pkey');
        expect(
          plan.indexes.filter((i) => i.includes('_metadata')),
          why,
        ).toEqual([]);
        expect(plan.fullScan, why).toBe(false);
      }
    },
  );

  // Migration 0030: a payment's entries carry its currency, card_brand and amount, so a search beside those (and a
  // created_at range), over the whole list, is counted in the lead's entries alone, in any sort: no record read.
  it.each(
    LIST_SHAPES.filter(
      (s) =>
        s.probes &&
        !s.perAccount &&
        !totalIsValueCount({ tenantId: 'ten_x' }, parsedQuery(s)) &&
        parsedQuery(s).conditions.every((c) => c.match === 'metadata' || testedInEntries(`${s.table === 'payments' ? 'payment' : 'account'}_metadata`, c)),
    ),
  )('$request counts its total in the entries alone, reading no record', async (shape) => {
    const entries = shape.table === 'payments' ? 'payment_metadata' : 'account_metadata';
    const totals = shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect).filter(
      (q) => q.label.startsWith('total') && !q.label.includes('probed') && !q.label.includes('metadata_value_counts'),
    );
    expect(totals.length).toBeGreaterThan(0);
    for (const { label, query } of totals) {
      const plan = await explain(query);
      const why = `${label}:\n${plan.lines.join('\n')}`;
      expect(plan.fullScan, why).toBe(false);
      expect(
        plan.lines.filter((l) => new RegExp(`\\b${shape.table}\\b`).test(l)),
        why,
      ).toEqual([]);
      expect(plan.indexes.length, why).toBeGreaterThan(0);
      expect(
        plan.indexes.every((i) => i.startsWith(entries)),
        why,
      ).toBe(true);
      // (Index-only on PostgreSQL at scale: the key INCLUDEs the carried columns, `Heap Fetches: 0` on a vacuumed table;
      // on these tiny unvacuumed tables the planner may take the narrower value_record index and read the entry's row.)
    }
  });

  // Migration 0023: the entries of a value are kept in the list's default order, so a search in created_at order
  // (either direction) reads any page from the entry table's key alone, index-only, then the page's records by id:
  // nothing sorted but the page's own rows, at the end. Migration 0032: a payment search in amount order so from the
  // entries' amount_order index; several values of the lead, one ordered run each, merged (no sort of the runs).
  it.each(LIST_SHAPES.filter((s) => s.probes && readsInEntryOrder({ tenantId: 'ten_x' }, parsedQuery(s))))(
    '$request reads any page in its entries’ order from the index in that order, index-only, sorting no match',
    async (shape) => {
      const entries = shape.table === 'payments' ? 'payment_metadata' : 'account_metadata';
      const query = parsedQuery(shape);
      const ordering = query.sort[0].column === 'amount' ? `${entries}_amount_order` : `${entries}_pkey`;
      const pages = shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect).filter((q) => q.strategy?.startsWith('entries'));
      expect(pages.length).toBe(2);
      for (const { label, query: statement } of pages) {
        const plan = await explain(statement);
        const why = `${label}:\n${plan.lines.join('\n')}`;
        expect(plan.fullScan, why).toBe(false);
        expect(plan.sortBeforeLimit, why).toBe(false);
        // The entries by the index in the sort's order (both branches: forward and from the end; each value of the lead:
        // a run of its own); the records by id. A search of several keys probes each walked entry's record for the
        // others (one exact descent by (tenant, key, value, record_id)), and counts its total along the lead's entries,
        // in any of the entries' indexes (on these tiny tables the planner takes any: at scale the narrowest).
        const keys = query.conditions.filter((c) => c.match === 'metadata');
        const runs = 2 * keys[0].values.length;
        const read = plan.indexes.filter((i) => i.startsWith(entries));
        expect(read.filter((i) => i === ordering).length, why).toBeGreaterThanOrEqual(runs);
        expect(
          read.every((i) => [`${entries}_pkey`, `${entries}_value_record`, `${entries}_amount_order`].includes(i)),
          why,
        ).toBe(true);
        // One key beside at most statuses: the total is the values' maintained counts; beside other conditions the entries answer (0030, 0032), counted along them.
        const counted = keys.length === 1 && query.conditions.every((c) => c.match === 'metadata' || c.column === 'status');
        if (counted) expect(read, why).toEqual(Array(runs).fill(ordering));
        for (const line of plan.lines.filter((l) => / o | o$/.test(l))) expect(line, why).toMatch(/record_id/);
        expect(plan.indexConditions, why).toContain('id');
        // Beside conditions the entries answer, the count along them may take the narrower value_record index on these tiny
        // unvacuumed tables (at 1M: the key, index-only, Heap Fetches 0); the page's branches are index-only in the ordering index.
        if (database.db.dialect === 'postgres' && counted) expect(plan.indexOnly, why).toEqual(read);
        if (database.db.dialect === 'postgres') expect(plan.indexOnly.filter((i) => i === ordering).length, why).toBeGreaterThanOrEqual(runs);
        // The one sort there is orders the page's rows (at most per_page) at the very end: the statement's top, above every LIMIT.
        const sorts = plan.lines.filter((l) => /Sort|TEMP B-TREE/.test(l) && !/Merge Append|MERGE/.test(l));
        expect(sorts.length, why).toBeLessThanOrEqual(1);
        expect(
          sorts.every((l) => !/^\s/.test(l)),
          why,
        ).toBe(true);
      }
    },
  );

  // Migration 0019: amount rides in the created_at indexes, so the rows skipped before a deep page
  // of an amount range sorted by created_at are tested in the index alone, no table row read.
  it.each(LIST_SHAPES.filter((s) => s.walks?.endsWith('_created')))(
    '$request skips to a deep page in the sort’s index alone, each entry’s amount tested there',
    async (shape) => {
      const query = parsedQuery(shape);
      const sqlite = database.db.dialect === 'sqlite';
      // As each dialect writes it (rangePlans.ts): SQLite walking, PostgreSQL with the range as a literal.
      const written = withRangesWritten(query, sqlite ? 'unindexed' : 'literal');
      for (const q of [written, reversed(written)]) {
        const skip = sqlite
          ? hopSelect(database.db.kysely, 'payments', { tenantId: 'ten_x' }, q, undefined, 10_000)
          : deferredJoinPageSelect(database.db.kysely, 'payments', { tenantId: 'ten_x' }, q, 20_000, 100);
        const plan = await explain(skip);
        expect(plan.indexOnly, plan.lines.join('\n')).toContain(shape.walks);
      }
    },
  );

  // Migration 0026: the amount indexes carry created_at as 0019 made the created_at ones carry
  // amount, so a page of a range holding few rows (rangePlans.ts) sorts its ids in the range's
  // index alone, at any depth, and reads only the page's rows, by primary key.
  it.runIf(TEST_DIALECT === 'sqlite').each(LIST_SHAPES.filter((s) => s.rangeIndex))(
    '$request, few rows in range: the ids sorted in the range’s index alone, the page’s rows read by primary key (SQLite)',
    async (shape) => {
      const reads = shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect).filter((q) => q.strategy?.startsWith('range'));
      expect(reads.length).toBe(2);
      for (const { label, query } of reads) {
        const plan = await explain(query);
        const why = `${label}:\n${plan.lines.join('\n')}`;
        expect(plan.fullScan, why).toBe(false);
        expect(plan.indexOnly, why).toContain(shape.rangeIndex);
        expect([...plan.indexes].sort(), why).toEqual([shape.rangeIndex, 'sqlite_autoindex_payments_1'].sort());
      }
    },
  );

  // Counts in two dimensions (lists/counters/amountClassBuckets.ts): a deep page of an amount range made of
  // whole classes, sorted by created_at, is placed by the classes' created_at buckets, then read
  // by walking the slice's created_at index with the range tested on each entry: no sort, no scan.
  it.each([
    ['filter[amount][gte]=1000', 'payments_tenant_created'],
    ['filter[currency]=EUR&filter[amount][gte]=1000&filter[amount][lte]=9999', 'payments_tenant_currency_created'],
    ['filter[amount][gt]=99&filter[amount][lt]=100000&sort=created_at', 'payments_tenant_created'],
    ['filter[amount][gte]=5000', 'payments_tenant_created'],
    ['filter[currency]=EUR&filter[amount][gte]=1000&filter[amount][lte]=5000', 'payments_tenant_currency_created'],
    ['filter[amount][gt]=20&filter[amount][lt]=500&sort=created_at', 'payments_tenant_created'],
  ])('%s: a deep page placed by amount classes walks %s, sorting nothing', async (request, index) => {
    const query = parseListQuery(paymentListSpec, parseQueryString(request) as RawListQuery);
    const page = bucketPageQuery(database.db.kysely, database.db.dialect, 'payments', { tenantId: 'ten_x' }, query, { page: 51, perPage: 100, offset: 5000 });
    if (!page) throw new Error(`${request}: no bucket page`);
    const compiled = page.compile();
    expect(compiled.sql).toMatch(/sort_key in \('created_at(\.a\d{2}|\.a\d{4})?'(, 'created_at\.a\d+')*\)/);
    expect(compiled.sql).toMatch(/sort_key in \([^)]*'created_at\.a\d/);
    const plan = await explain(page);
    const why = plan.lines.join('\n');
    expect(plan.fullScan, why).toBe(false);
    expect(plan.sortBeforeLimit, why).toBe(false);
    expect(plan.indexes, why).toContain(index);
  });

  // Two of status, currency and card brand beside a created_at or amount range (countedSlices.ts
  // BUCKETED_SLICES, migration 0031): the total is the pair's bucket counts plus the rows of the
  // range's partly covered edge buckets, never the pair's rows counted.
  it.each([
    'filter[status]=succeeded&filter[currency]=EUR&filter[created_at][gte]=2026-03-01&filter[created_at][lt]=2026-04-01',
    'filter[status]=succeeded&filter[currency]=EUR&filter[amount][gte]=1000',
    'filter[card_brand]=visa&filter[status]=failed&filter[amount][gte]=1000&sort=amount',
    'filter[currency]=EUR,USD&filter[card_brand]=visa&filter[created_at][lt]=2026-03-01T12:34:56Z',
  ])('%s: its total read from the pair’s bucket counts', (request) => {
    const query = parseListQuery(paymentListSpec, parseQueryString(request) as RawListQuery);
    const total = listTotalSelect(database.db.kysely, database.db.dialect, 'payments', { tenantId: 'ten_x' }, query);
    expect(total.from).toBe('list_buckets and edge rows');
    expect(total.select.compile().sql).toContain('list_buckets');
  });

  // Three dimensions and a range no bucket counts cover (leadDimension.ts, migration 0029): the
  // total counted in the index of the one with a single value alone, the others tested in its
  // entries, no row read for them.
  it.runIf(TEST_DIALECT === 'sqlite').each([
    ['filter[status]=succeeded&filter[currency]=EUR,USD&filter[card_brand]=visa&filter[created_at][gte]=2026-01-01', 'payments_tenant_status_created'],
    ['filter[card_brand]=visa&filter[status]=failed&filter[currency]=EUR&filter[amount][gte]=1000', 'payments_tenant_status_amount'],
  ])('%s: counted in %s alone (SQLite)', async (request, index) => {
    const query = parseListQuery(paymentListSpec, parseQueryString(request) as RawListQuery);
    const plan = await explain(listTotalSelect(database.db.kysely, database.db.dialect, 'payments', { tenantId: 'ten_x' }, query).select);
    expect(plan.lines.join('\n')).toContain(`COVERING INDEX ${index}`);
    expect(plan.indexes, plan.lines.join('\n')).toEqual([index]);
  });

  // The service's plans are generic (plan_cache_mode = force_generic_plan), and a generic plan
  // takes a parameter LIMIT for a tenth of the rows: the deferred join's outer read became a hash
  // join over the whole table (1.5 s for one page at 1M payments, docs/performance.md). On the
  // test's empty tables both plans look alike, so the text is what is held: the LIMIT written in it.
  it.runIf(TEST_DIALECT === 'postgres')('writes a deferred join’s LIMIT into its text, so its generic plan reads only the page’s rows', () => {
    const query = parseListQuery(paymentListSpec, parseQueryString('filter[amount][gte]=1000') as RawListQuery);
    const page = deferredJoinPageSelect(database.db.kysely, 'payments', { tenantId: 'ten_x' }, reversed(query), 20_000, 37).compile();
    expect(page.sql).toMatch(/ limit 37 offset \$\d+\)/);
    expect(page.parameters).not.toContain(37);
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'writes a range on another column than the sort’s first into the statement’s text, sent unnamed, when no counts choose its plan (PostgreSQL)',
    () => {
      const page = (q: string) =>
        offsetPageQuery(
          database.db.kysely,
          'postgres',
          'payments',
          { tenantId: 'ten_x' },
          parseListQuery(paymentListSpec, parseQueryString(q) as RawListQuery),
          {
            page: 1,
            perPage: 10,
            offset: 0,
          },
        );
      // Two currencies: no one index gives the order to walk (walkServesOrder), so nothing to choose between.
      const literal = page('filter[currency]=EUR,USD&filter[amount][gte]=1000&filter[amount][lt]=10000');
      expect(driverFlagsOf(literal).prepared).toBeUndefined();
      expect(literal.sql).toContain('"amount" >= 1000');
      expect(literal.sql).toContain('"amount" < 10000');
      // One currency: both plans in one named statement, chosen by its counts (rangePlanStatement.e2e.test.ts).
      const chosen = page('filter[currency]=EUR&filter[amount][gte]=1000&filter[amount][lt]=10000');
      expect(driverFlagsOf(chosen).prepared).toBe(true);
      expect(chosen.sql).not.toContain('>= 1000');
      expect(chosen.sql).toContain('with c as materialized');
      // A range on the sort's first column keeps its parameters and its named statement.
      const bySort = page('filter[amount][gte]=1000&sort=amount');
      expect(driverFlagsOf(bySort).prepared).toBe(true);
      expect(bySort.sql).not.toContain('>= 1000');
      expect(bySort.sql).not.toContain('with c as materialized');
    },
  );

  // valuePlans.ts: a list counted row by row that two dimensions narrow has their values in its text, so PostgreSQL's
  // plan is made for them (a generic plan prices every value alike, and counted `visa × failed` along the brand's
  // index, 300k entries at 1M, where the status's holds 62k); migration 0028: each dimension's indexes carry the other
  // two, so the count is read in whichever of them the values pick alone, no table row read. (On the test's empty
  // tables every plan costs alike, so what is held is the text and that every index the values could pick holds every
  // column the count tests.)
  it
    .runIf(TEST_DIALECT === 'postgres')
    .each([
      'filter[card_brand]=visa&filter[status]=failed&filter[currency]=EUR&filter[amount][gte]=1000&sort=amount',
      'filter[status]=succeeded&filter[currency]=EUR&filter[card_brand]=mastercard&filter[created_at][gte]=2026-01-01',
      'filter[card_brand]=visa,amex&filter[currency]=EUR&filter[status]=failed&filter[amount][lt]=5000&sort=-amount',
    ])('%s: its values written into the text, sent unnamed, its count held in each filtered dimension’s index alone (PostgreSQL)', async (request) => {
    const query = parseListQuery(paymentListSpec, parseQueryString(request) as RawListQuery);
    const first = offsetPageQuery(database.db.kysely, 'postgres', 'payments', { tenantId: 'ten_x' }, query, { page: 1, perPage: 10, offset: 0 });
    expect(driverFlagsOf(first).prepared).toBeUndefined();
    for (const c of query.conditions) if (c.match === 'in') for (const v of c.values) expect(first.sql).toContain(`'${v}'`);
    const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = current_schema() and tablename = 'payments'`.execute(
      database.db.kysely,
    );
    const indexes = rows.map((r) => {
      const [, key, include = ''] = /\(([^)]*)\)(?: INCLUDE \(([^)]*)\))?$/.exec(r.indexdef) ?? [];
      const columns = (list: string) =>
        list
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean);
      return { key: columns(key ?? ''), all: [...columns(key ?? ''), ...columns(include)] };
    });
    const tested = [...new Set(query.conditions.map((c) => c.column))];
    const sortColumn = query.sort[0].column;
    for (const dimension of tested.filter((c) => c !== 'amount' && c !== 'created_at')) {
      // The dimension's index by the list's range (or sort) column: (tenant_id, dimension, column, id).
      const column =
        tested.includes('amount') || tested.includes('created_at') ? (tested.find((c) => c === 'amount' || c === 'created_at') as string) : sortColumn;
      const index = indexes.find((i) => i.key.join() === ['tenant_id', dimension, column, 'id'].join());
      expect(index, `${dimension} by ${column}`).toBeDefined();
      for (const c of tested) expect(index?.all, `${dimension} by ${column} holds ${c}`).toContain(c);
    }
  });

  // Migration 0027, kept by 0028's rebuilds on PostgreSQL: a card's payments counted and sorted in the index alone.
  it('keeps the last-four index carrying amount, status, currency and card brand after every migration', async () => {
    const definition =
      database.db.dialect === 'postgres'
        ? sql<{ text: string }>`select indexdef as text from pg_indexes where schemaname = current_schema() and indexname = 'payments_tenant_last4'`
        : sql<{ text: string }>`select sql as text from sqlite_master where name = 'payments_tenant_last4'`;
    const [{ text }] = (await definition.execute(database.db.kysely)).rows;
    for (const column of ['card_last4', 'created_at', 'amount', 'status', 'currency', 'card_brand']) expect(text).toContain(column);
  });

  it.each(LIST_SHAPES.filter((s) => s.ordered))('$request reads a page straight from an index bounded by every filter, sorting nothing', async (shape) => {
    for (const { label, strategy, query } of shapeQueries(database.db.kysely, 'ten_x', shape, database.db.dialect)) {
      if (!strategy) continue;
      const plan = await explain(query);
      const why = `${label}:\n${plan.lines.join('\n')}`;
      expect(plan.sortBeforeLimit, why).toBe(false);
      expect(plan.residualFilter, why).toBe(false);
      expect(plan.indexConditions, why).toEqual(expect.arrayContaining(boundColumns(shape)));
    }
  });
});

// The amount classes' buckets are read with index seeks: list_buckets' key is (tenant, list,
// sort_key, level, …, bucket), so the classes are listed (sort_key in (…)), one seek per class and
// level; a range on sort_key would sweep every level's rows of the classes, the hour level's
// most of all. On tables with rows and statistics (an empty table's plan says nothing about seeks).
describe(`amount class descents' reads of list_buckets (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    const db = database.db.kysely;
    await sql`insert into tenants (id, name, created_at) values ('ten_x', 'x', '2026-01-01T00:00:00Z')`.execute(db);
    const classes = ['amount', 'created_at', ...Array.from({ length: 200 }, (_, i) => `created_at.a${String(i).padStart(4, '0')}`)];
    for (const sortKey of classes) {
      await sql`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
        select 'ten_x', 'payments', ${sortKey}, l.level, '', '', c.currency, '', b.bucket, 1
        from (select 0 as level union all select 1 union all select 2) l, (select '' as currency union all select 'EUR') c,
          (select 0 as bucket union all select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6) b`.execute(db);
    }
    // Only this database's own tables: on PostgreSQL a bare ANALYZE reaches every schema of the shared
    // test database, and would give the still-empty tables of a test file running beside this one
    // (another worker's) statistics saying they are empty.
    await sql`analyze tenants`.execute(db);
    await sql`analyze list_buckets`.execute(db);
  });
  afterAll(() => database.drop());

  it.each(['filter[amount][gte]=5000', 'filter[currency]=EUR&filter[amount][gte]=1000&filter[amount][lte]=5000', 'filter[amount][lte]=5000&sort=created_at'])(
    '%s: each level seeks each class by sort key and level',
    async (request) => {
      const query = parseListQuery(paymentListSpec, parseQueryString(request) as RawListQuery);
      const page = bucketPageQuery(database.db.kysely, database.db.dialect, 'payments', { tenantId: 'ten_x' }, query, { page: 51, perPage: 100, offset: 5000 });
      if (!page) throw new Error(`${request}: no bucket page`);
      expect(page.compile().sql).toMatch(/sort_key in \('created_at(\.a\d{2}|\.a\d{4})?', 'created_at\.a/);
      const plan = await explainPlan(database.db.kysely, database.db.dialect, page, { forceIndexes: true });
      const why = plan.lines.join('\n');
      const reads =
        database.db.dialect === 'sqlite'
          ? plan.lines.filter((l) => /(SEARCH|SCAN) list_buckets/.test(l))
          : plan.lines.filter((l) => l.includes('list_buckets') && l.includes('created_at.a'));
      // One currency's classes are counted to the day (two levels), the whole list's to the hour (three).
      expect(reads.length, why).toBeGreaterThanOrEqual(request.includes('currency') ? 2 : 3);
      for (const read of reads) {
        // PostgreSQL: the index condition is the part in brackets before any `filter`.
        const seek = database.db.dialect === 'sqlite' ? read : read.split(' filter [')[0];
        expect(seek, why).toMatch(database.db.dialect === 'sqlite' ? /sort_key=\? AND level=\?/ : /sort_key = ANY .*\(level = \d\)/);
      }
    },
  );
});
