import fc from 'fast-check';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../support/testDatabase.ts';
import { seed } from '../../support/seedHelpers.ts';
import { driverFlagsOf } from '../../../src/db/driverFlags.ts';
import { parseQueryString } from '../../../src/http/parseQueryString.ts';
import { walkIsCheaper } from '../../../src/lists/plan/rangePlans.ts';
import { walkIsCheaperSql } from '../../../src/lists/sql/rangePlanStatement.ts';
import { parseListQuery, type RawListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { paymentListSpec } from '../../../src/payments/paymentListSpec.ts';
import { offsetPageQuery } from '../../../src/lists/sql/listStatements.ts';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'One-Time Filter'?: string;
  Filter?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

const subtree = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(subtree)];

/**
 * PostgreSQL: the first pages of a range on another column than the sort's first are one named
 * statement holding both plans (rangePlanStatement.ts); its one generic plan must run the walk
 * when most of the slice is in range and the range's index when little is, chosen by the counts
 * the statement reads. (Its answers are the everyFilterShape and rangedLists tests'.)
 */
describe.runIf(TEST_DIALECT === 'postgres')('a range off the sort: both plans in one prepared statement (PostgreSQL)', () => {
  let database: TestDatabase;
  let tenantId: string;
  let amounts: number[];
  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'plans', 3, 600);
    const { kysely } = database.db;
    tenantId = (await kysely.selectFrom('tenants').select('id').where('name', '=', 'plans').executeTakeFirstOrThrow()).id;
    const rows = await kysely.selectFrom('payments').select('amount').where('tenant_id', '=', tenantId).orderBy('amount').execute();
    amounts = rows.map((r) => Number(r.amount));
  });
  afterAll(() => database.drop());

  /** The page's statement's generic plan, run with the request's values (EXPLAIN ANALYZE). */
  async function genericPlan(queryString: string): Promise<PlanNode> {
    const query = parseListQuery(paymentListSpec, parseQueryString(queryString) as RawListQuery);
    const page = offsetPageQuery(database.db.kysely, 'postgres', 'payments', { tenantId }, query, { page: 1, perPage: 10, offset: 0 });
    expect(driverFlagsOf(page).prepared).toBe(true);
    expect(page.sql.startsWith('/*')).toBe(false);
    // Parameters, not literals: one text for every value of the range.
    expect(page.sql).not.toMatch(/"amount"\)? [<>]=? \d/);
    // Prepared as the service's connections prepare it, and run by its generic plan (EXPLAIN of the
    // text with parameters would plan it for their values).
    const literal = (v: unknown) => `'${String(v).replace(/'/g, "''")}'`;
    return database.db.kysely.connection().execute(async (conn) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
      await conn.executeQuery(CompiledQuery.raw(`prepare range_page as ${page.sql}`));
      try {
        const result = await conn.executeQuery<{ 'QUERY PLAN': unknown }>(
          CompiledQuery.raw(`explain (analyze, format json) execute range_page(${page.parameters.map(literal).join(', ')})`),
        );
        const raw = result.rows[0]['QUERY PLAN'];
        return ((typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>)[0].Plan;
      } finally {
        await sql`deallocate range_page`.execute(conn);
        await sql`reset plan_cache_mode`.execute(conn);
      }
    });
  }

  /** Which branch of the page's statement ran. */
  async function branchesRun(queryString: string) {
    const plan = await genericPlan(queryString);
    const gated = subtree(plan).filter((n) => n['One-Time Filter'] !== undefined);
    expect(gated.length, JSON.stringify(plan)).toBe(2);
    const ran = (n: PlanNode) => (n.Plans?.[0]['Actual Loops'] ?? 0) > 0;
    const walks = (n: PlanNode) => subtree(n).some((m) => m.Filter?.includes('COALESCE'));
    return { walk: gated.filter(walks).map(ran), read: gated.filter((n) => !walks(n)).map(ran) };
  }

  it('walks the sort’s index when most rows are in range, and never starts the range’s index', async () => {
    const wide = amounts[Math.floor(amounts.length * 0.3)];
    expect(await branchesRun(`filter[amount][gte]=${wide}`)).toEqual({ walk: [true], read: [false] });
  });

  it('reads the range’s index when few rows are, and never starts the walk', async () => {
    const narrow = amounts[amounts.length - 3];
    expect(await branchesRun(`filter[amount][gte]=${narrow}`)).toEqual({ walk: [false], read: [true] });
  });

  // Read whole, every row in range was fetched from the table to be sorted, per_page of them kept
  // (page 1 of `amount ≤ 100`, 5,392 of 10M payments: ~160 ms). The range's index carries the
  // sort's column (migration 0026): the sort reads that index alone, then the page's rows by id.
  it('reads the range’s rows in its index alone, sorts them there, then reads only the page’s rows by id', async () => {
    const narrow = amounts[amounts.length - 40];
    const plan = await genericPlan(`filter[amount][gte]=${narrow}`);
    const why = JSON.stringify(plan, null, 1);
    // Every read of payments that ran: the range's index (the page's keys, the total's edge counts) and the page's rows by id.
    const reads = subtree(plan)
      .filter((n) => n['Relation Name'] === 'payments' && (n['Actual Loops'] ?? 0) > 0)
      .map((n) => `${n['Node Type']} ${n['Index Name']} ×${n['Actual Loops']}`);
    expect(new Set(reads), why).toEqual(new Set(['Index Only Scan payments_tenant_amount ×1', 'Index Scan payments_pkey ×10']));
  });

  it('chooses in SQL exactly as walkIsCheaper does', async () => {
    const count = fc.integer({ min: 0, max: 20_000_000 });
    await fc.assert(
      fc.asyncProperty(count, count, fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 5000 }), async (slice, covered, offset, perPage) => {
        const walks = walkIsCheaperSql(sql`cast(${slice} as numeric)`, sql`cast(${covered} as numeric)`, offset, perPage);
        const { rows } = await sql<{ walks: boolean }>`select ${walks} as walks`.execute(database.db.kysely);
        expect(rows[0].walks).toBe(walkIsCheaper({ slice, covered }, offset, perPage));
      }),
      { numRuns: 200 },
    );
  });
});
