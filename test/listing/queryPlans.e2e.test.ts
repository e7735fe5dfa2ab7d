import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';
import { explainPlan } from '../../scripts/explain/explainPlan.ts';
import { boundColumns, LIST_SHAPES, shapeQueries } from '../../scripts/explain/listQueryShapes.ts';
import { accountResourcesSelect } from '../../src/accounts/accountRepresentation.ts';

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

  it('expands a page’s accounts (expand[]=account) by primary key, never reading the table whole', async () => {
    const plan = await explain(accountResourcesSelect(database.db.kysely, 'ten_x', ['acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C', 'acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0D']));
    expect(plan.fullScan, plan.lines.join('\n')).toBe(false);
    expect(plan.indexes.length, plan.lines.join('\n')).toBeGreaterThan(0);
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
