import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PERFORMANCE, performanceWithPlanTable, planTable } from '../../scripts/generate/planTable.ts';

describe('the plan table of docs/performance.md', () => {
  it('is what the planner plans for each request shape (npm run generate rewrites it)', () => {
    const doc = readFileSync(PERFORMANCE, 'utf8');
    expect(doc).toBe(performanceWithPlanTable(doc));
  });

  it('names every way a page is found, on each database, somewhere in the table', () => {
    const table = planTable();
    for (const way of ['offset', 'buckets', 'entries', 'sorted-ids', 'classes', 'deferred-join', 'skip-hops']) expect(table).toContain(`\`${way}\``);
    expect(table).toContain('chosen by its counts in the statement');
  });
});
