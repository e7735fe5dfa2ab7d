import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeSqliteDialect } from '../../../src/db/nodeSqliteDialect.ts';
import { sqliteRowsUpsert } from '../../../src/lists/counters/sqliteRowsUpsert.ts';

const db = new Kysely<Record<string, never>>({ dialect: nodeSqliteDialect(new DatabaseSync(':memory:')) });
afterAll(() => db.destroy());

describe("SQLite's counted-rows upsert from one JSON array", () => {
  it('adds to the rows it finds and inserts the others, each value with its own type, with one text for any number of rows', async () => {
    await sql`create table counted (tenant_id text not null, key text not null, level integer not null, bucket integer not null, n integer not null,
      primary key (tenant_id, key, level, bucket))`.execute(db);
    const row = (key: string, level: number, bucket: number, n: number) => ({ tenant_id: 'ten_1', key, level, bucket, n });
    const first = sqliteRowsUpsert('counted', [row('007', 1, 1_732_000_000_000, 2), row('ünï"\\code', 2, 5, 1)]).compile(db);
    await db.executeQuery(first);
    const second = sqliteRowsUpsert('counted', [row('007', 1, 1_732_000_000_000, -1), row('7', 1, 1_732_000_000_000, 4), row('ünï"\\code', 2, 5, 3)]).compile(
      db,
    );
    await db.executeQuery(second);
    expect(second.sql).toBe(first.sql);
    const { rows } = await sql<{
      key: string;
      level: number;
      bucket: number;
      n: number;
      t: string;
    }>`select key, level, bucket, n, typeof(key) as t from counted order by key`.execute(db);
    expect(rows).toEqual([
      { key: '007', level: 1, bucket: 1_732_000_000_000, n: 1, t: 'text' },
      { key: '7', level: 1, bucket: 1_732_000_000_000, n: 4, t: 'text' },
      { key: 'ünï"\\code', level: 2, bucket: 5, n: 4, t: 'text' },
    ]);
  });
});
