import { CompiledQuery, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { driverFlagsOf, flagged, withFlags } from '../../src/db/driverFlags.ts';
import { guardedStatement } from '../../src/db/guardedStatement.ts';
import { StatementTemplates } from '../../src/db/statementTemplates.ts';

/** Compiles as the service's PostgreSQL handle does (its compiler), and runs nothing. */
const db = new Kysely<{ t: { a: string } }>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const select = { compile: () => CompiledQuery.raw('select $1::int + 1', [41]) };

describe('driver flags', () => {
  it('travel beside the statement, its text and values as they were', () => {
    const compiled = flagged(select, { prepared: true }).compile();
    expect(compiled.sql).toBe('select $1::int + 1');
    expect(compiled.parameters).toEqual([41]);
    expect(driverFlagsOf(compiled)).toEqual({ prepared: true });
    expect(driverFlagsOf(select.compile())).toEqual({});
  });

  it('add to those a statement has, and leave the compiled query they were given unflagged', () => {
    const once = flagged(select, { bounded: true }).compile();
    const twice = withFlags(once, { readAtOnce: true });
    expect(driverFlagsOf(twice)).toEqual({ bounded: true, readAtOnce: true });
    expect(driverFlagsOf(once)).toEqual({ bounded: true });
    expect(twice.sql).toBe(once.sql);
  });

  it('keep what a query builder compiled from (its kind of query)', () => {
    const compiled = flagged(db.selectFrom('t').select('a'), { bounded: true }).compile();
    expect(compiled.query.kind).toBe('SelectQueryNode');
    expect(driverFlagsOf(compiled)).toEqual({ bounded: true });
  });

  it('pass on what a sql template compiles against', () => {
    const compiled = flagged(sql`select 1`, { prepared: true }).compile(db);
    expect(compiled.sql).toBe('select 1');
    expect(driverFlagsOf(compiled)).toEqual({ prepared: true });
  });

  it('carry over to every request of a statement template', () => {
    const templates = new StatementTemplates();
    const build = (slot: <T>(name: string) => T) =>
      flagged(db.selectFrom('t').select('a').where('a', '=', slot<string>('a')), { prepared: true, bounded: true });
    for (const a of ['x', 'y']) {
      const compiled = templates.statement('shape', build, { a });
      expect(compiled.parameters).toEqual([a]);
      expect(compiled.sql.startsWith('select')).toBe(true);
      expect(driverFlagsOf(compiled)).toEqual({ prepared: true, bounded: true });
    }
    expect(driverFlagsOf(templates.statement('plain', (slot) => db.selectFrom('t').select('a').where('a', '=', slot<string>('a')), { a: 'x' }))).toEqual({});
  });

  it('carry over to a guarded statement', () => {
    const statement = flagged(select, { prepared: true }).compile();
    const guarded = guardedStatement(statement, CompiledQuery.raw('select true as noted where $1 = 1', [1]));
    expect(guarded.sql.startsWith('select s.*, g.noted from (select true as noted where $2 = 1)')).toBe(true);
    expect(driverFlagsOf(guarded)).toEqual({ prepared: true });
    expect(driverFlagsOf(guardedStatement(select.compile(), CompiledQuery.raw('select true as noted')))).toEqual({});
  });
});
