import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETED_COLUMNS, bucketLevels, childBuckets, type SliceKind } from '../../../src/lists/counters/sortBuckets.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../support/testDatabase.ts';

// The one-statement deep page computes bucket bounds and children in SQL, on both databases;
// they must be the very values the JavaScript definitions give.
describe('bucket bounds written as SQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  for (const column of BUCKETED_COLUMNS) {
    for (const kind of ['tenant', 'account'] as SliceKind[]) {
      it(`${column} (${kind}): low, high and children in SQL equal their JavaScript`, async () => {
        const levels = bucketLevels(column, kind);
        const value = column === 'created_at' ? fc.integer({ min: 0, max: 4_102_444_800_000 }) : fc.integer({ min: 0, max: 999_999_999_999_999 });
        await fc.assert(
          fc.asyncProperty(value, async (v) => {
            for (const [i, level] of levels.entries()) {
              const b = level.of(v);
              const lit = String(b);
              const children = i + 1 < levels.length ? level.childrenSql(lit) : ['null', 'null'];
              const { rows } = await sql<{ low: string | number; high: string | number; first: number | null; last: number | null }>`
                select ${sql.raw(level.lowSql(lit, TEST_DIALECT))} as low, ${sql.raw(level.highSql(lit, TEST_DIALECT))} as high,
                  cast(${sql.raw(children[0])} as bigint) as first, cast(${sql.raw(children[1])} as bigint) as last`.execute(database.db.kysely);
              const asNumber = (x: string | number) => (column === 'created_at' ? Date.parse(String(x)) : Number(x));
              expect([asNumber(rows[0].low), asNumber(rows[0].high)]).toEqual([level.low(b), level.high(b)]);
              // SQLite compares created_at as text: the bound must be spelled exactly as rows store it.
              if (column === 'created_at' && TEST_DIALECT === 'sqlite') expect(rows[0].low).toBe(new Date(level.low(b)).toISOString());
              if (i + 1 < levels.length) expect([Number(rows[0].first), Number(rows[0].last)]).toEqual(childBuckets(level, levels[i + 1], b));
            }
          }),
          { numRuns: 200 },
        );
      });
    }
  }
});
