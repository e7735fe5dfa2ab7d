import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { withFlags } from '../../src/db/driverFlags.ts';
import { streamRowTexts } from '../../src/db/streamRowTexts.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase, TEST_PG_POOLER } from '../support/testDatabase.ts';

const onPostgres = it.runIf(TEST_DIALECT === 'postgres');

describe('streamRowTexts (PostgreSQL)', () => {
  let database: TestDatabase;
  let single: Db;
  let pool: import('pg').Pool;
  beforeAll(async () => {
    database = await createTestDatabase();
    single = database.openAnother({ poolMax: 1 }); // one connection: a leaked one would hang the next test
    if (single.native.dialect === 'postgres') pool = single.native.pool;
  });
  afterAll(async () => {
    await single.close();
    await database.drop();
  });

  const rowsOf = async (query: CompiledQuery) => {
    const rows: Array<ReadonlyArray<string | null>> = [];
    await streamRowTexts(pool, query, (fields) => rows.push([...fields]));
    return rows;
  };

  onPostgres('hands over every row in order, each field as the text PostgreSQL sent, NULL as null', async () => {
    const query = CompiledQuery.raw(
      `select n::int8 as total, case when n % 3 = 0 then null else json_build_object('n', n, 'name', $1::text || n)::text end as resource
       from generate_series(1, 2000) as n order by n`,
      ['Zoë 東京 '],
    );
    const rows = await rowsOf(query);
    expect(rows).toHaveLength(2000);
    expect(rows[0]).toEqual(['1', '{"n" : 1, "name" : "Zoë 東京 1"}']);
    expect(rows[2]).toEqual(['3', null]);
    expect(rows.map((r) => Number(r[0]))).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
  });

  onPostgres(
    TEST_PG_POOLER === 'transaction'
      ? 'runs a statement flagged prepared unnamed behind a transaction pooler, again and again'
      : 'runs a statement flagged prepared by its name, again and again on one connection',
    async () => {
      const query = withFlags(CompiledQuery.raw('select $1::int8 * 2 as doubled', [21]), { prepared: true });
      expect(await rowsOf(query)).toEqual([['42']]);
      expect(await rowsOf(withFlags(CompiledQuery.raw(query.sql, [5]), { prepared: true }))).toEqual([['10']]);
      const prepared = await single.kysely.executeQuery<{ n: number }>(
        CompiledQuery.raw(`select count(*)::int as n from pg_prepared_statements where statement like 'select $1::int8 * 2%'`),
      );
      expect(prepared.rows[0].n).toBe(TEST_PG_POOLER === 'transaction' ? 0 : 1);
    },
  );

  onPostgres('rejects with the database error and gives the connection back', async () => {
    await expect(rowsOf(CompiledQuery.raw('select 1 / 0'))).rejects.toThrow(/division by zero/);
    expect(await rowsOf(CompiledQuery.raw('select 1'))).toEqual([['1']]);
  });

  onPostgres('rejects with what the sink threw, after the statement has run to its end on the connection', async () => {
    let calls = 0;
    const failing = streamRowTexts(pool, CompiledQuery.raw('select n from generate_series(1, 500) as n'), () => {
      calls++;
      throw new Error('the sink is full');
    });
    await expect(failing).rejects.toThrow('the sink is full');
    expect(calls).toBe(1);
    expect(await rowsOf(CompiledQuery.raw('select 2'))).toEqual([['2']]);
  });
});
