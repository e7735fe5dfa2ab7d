import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineParameters, openSnapshot } from '../../src/db/snapshotReader.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

/** Texts as JSON writes them, with everything that a quoting or escaping mistake would change. */
const AWKWARD = [
  '{"name":"O\'Brien \\"the\\" \\\\ back\\\\slash","note":"tab\\there, line\\nbreak"}',
  '{"q":"\'\'","dollar":"$1 $$ $2","e":"E\'x\'","copy":"\\\\."}',
  '{"unicode":"Zoë 東京 😀 \\u2028 \\u0001 ü","comma":"a,b;c|d"}',
  '{"empty":""}',
];

describe('a snapshot reader', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('writes parameters as literals that read back as the same values, and refuses what it cannot write', () => {
    const compiled = {
      sql: 'select $1, $2, $10, $3',
      parameters: ["it's", 'a\\b', 7, 1, 2, 3, 4, 5, 6, true],
      query: undefined as never,
      queryId: undefined as never,
    };
    expect(inlineParameters(compiled)).toBe("select 'it''s',  E'a\\\\b', true, 7");
    expect(() => inlineParameters({ ...compiled, parameters: [{}, 1, 2, 3, 4, 5, 6, 7, 8, 9] })).toThrow(/literal/);
    expect(() => inlineParameters({ ...compiled, parameters: [Number.NaN, 1, 2, 3, 4, 5, 6, 7, 8, 9] })).toThrow(/literal/);
  });

  it('hands a column out as bytes, one value a line, exactly as stored, parameters written in', async () => {
    const reader = await openSnapshot(database.db, { statementTimeoutMs: 0 });
    try {
      const rows = sql.join(
        AWKWARD.map((text, i) => sql`select ${i} as i, ${text} as resource`),
        sql` union all `,
      );
      const query = sql`select resource from (${rows}) as v where resource <> ${'no such text'} order by i`.compile(database.db.kysely);
      const chunks: Buffer[] = [];
      for await (const chunk of reader.lines(query)) chunks.push(chunk);
      expect(Buffer.concat(chunks).toString('utf8')).toBe(AWKWARD.map((text) => `${text}\n`).join(''));
    } finally {
      await reader.close();
    }
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'lets a copy run past the statement timeout (its reader paces it), and keeps the timeout for what follows',
    async () => {
      const reader = await openSnapshot(database.db, { statementTimeoutMs: 150 });
      try {
        const slow = sql<{ resource: string }>`select pg_sleep(0.2)::text || ${'x'} as resource from generate_series(1, 2)`.compile(database.db.kysely);
        const chunks: Buffer[] = [];
        for await (const chunk of reader.lines(slow)) chunks.push(chunk);
        expect(Buffer.concat(chunks).toString()).toBe('x\nx\n');
        await expect(reader.all(sql`select pg_sleep(0.3)`.compile(database.db.kysely))).rejects.toThrow(/statement timeout/);
      } finally {
        await reader.close();
      }
    },
  );

  it.runIf(TEST_DIALECT === 'postgres')('gives up its connection when a copy is left midway, and the pool goes on serving', async () => {
    const before = database.db.poolStats();
    const reader = await openSnapshot(database.db, { statementTimeoutMs: 0 });
    const query = sql<{ resource: string }>`select repeat('x', 100) as resource from generate_series(1, 200000)`.compile(database.db.kysely);
    const lines = reader.lines!(query);
    expect((await lines.next()).done).toBe(false);
    await lines.return(undefined);
    await reader.close();
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db.kysely);
    expect(rows).toEqual([{ one: 1 }]);
    const after = database.db.poolStats();
    expect(after.total - after.idle).toBeLessThanOrEqual(before.total - before.idle);
  });

  it.runIf(TEST_DIALECT === 'sqlite')('reads on a thread of its own: the request thread turns while a long count runs', async () => {
    const reader = await openSnapshot(database.db, { statementTimeoutMs: 0 });
    try {
      const long = sql<{ n: number }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000) select count(*) as n from c`;
      const order: string[] = [];
      const counted = reader.all<{ n: number }>(long.compile(database.db.kysely)).then((rows) => {
        order.push('counted');
        return rows;
      });
      await new Promise((resolve) => setImmediate(resolve));
      order.push('turned');
      expect(await counted).toEqual([{ n: 3000000 }]);
      expect(order).toEqual(['turned', 'counted']);
    } finally {
      await reader.close();
    }
  });

  it.runIf(TEST_DIALECT === 'sqlite')('stops reading when left midway, and closes cleanly after', async () => {
    const reader = await openSnapshot(database.db, { statementTimeoutMs: 0 });
    const query = sql<{
      resource: string;
    }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000) select printf('%0100d', x) as resource from c`;
    const lines = reader.lines(query.compile(database.db.kysely));
    const first = await lines.next();
    expect(first.done).toBe(false);
    expect((first.value as Buffer).toString().split('\n')[0]).toBe('1'.padStart(100, '0'));
    await lines.return(undefined);
    await reader.close();
    await reader.close();
  });
});
