import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainPlan } from '../../scripts/explain/explainPlan.ts';
import { SENDER_QUERIES } from '../../scripts/explain/senderQueries.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

// What the sender asks every poll, whatever the backlog: each must be a bounded index probe.
// PostgreSQL is told to avoid seq scans wherever an index allows (the test tables are tiny).
describe(`webhook sender query plans (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it.each(SENDER_QUERIES)('$label reads deliveries through its index only', async ({ query, indexes }) => {
    const plan = await explainPlan(database.db.kysely, database.db.dialect, query(database.db.kysely), { forceIndexes: true });
    const why = plan.lines.join('\n');
    expect(plan.indexes, why).toEqual(expect.arrayContaining(indexes));
    const readWhole = plan.lines.filter((l) => /Seq Scan on webhook_deliveries|^\s*SCAN (webhook_deliveries|q|h)\b/.test(l));
    expect(readWhole, why).toEqual([]);
  });
});
