import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StatementTemplates } from '../../src/db/statementTemplates.ts';

const db = new Kysely<{ t: { a: string; b: number } }>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

describe('statement templates', () => {
  it('build a shape once and give every request the same SQL with its own values in place', () => {
    const templates = new StatementTemplates();
    let builds = 0;
    const build = (slot: <T>(name: string) => T) => {
      builds += 1;
      return db.selectFrom('t').select('a').where('a', '=', slot<string>('a')).where('b', '>', slot<number>('b')).limit(sql.lit(1));
    };
    const first = templates.statement('shape', build, { a: 'x', b: 1 });
    const second = templates.statement('shape', build, { a: 'y', b: 2 });
    expect(builds).toBe(1);
    expect(second.sql).toBe(first.sql);
    expect(first.parameters).toEqual(['x', 1]);
    expect(second.parameters).toEqual(['y', 2]);
    expect(second.sql).toBe(db.selectFrom('t').select('a').where('a', '=', 'y').where('b', '>', 2).limit(sql.lit(1)).compile().sql);
  });

  it('refuse to run a statement with a value missing, rather than send a placeholder', () => {
    const templates = new StatementTemplates();
    expect(() => templates.statement('shape', (slot) => db.selectFrom('t').select('a').where('a', '=', slot<string>('a')), {})).toThrow(/no value for a/);
  });

  it('keep a shape as its text and parameters, never the query tree it was built from', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const templates = new StatementTemplates();
    let tree: WeakRef<object> | undefined;
    templates.statement(
      'shape',
      (slot) => ({
        compile: () => {
          const compiled = db.selectFrom('t').select('a').where('a', '=', slot<string>('a')).compile();
          tree = new WeakRef(compiled.query);
          return compiled;
        },
      }),
      { a: 'x' },
    );
    // A WeakRef holds its target until the current job ends.
    await turn();
    collect();
    expect(tree?.deref()).toBeUndefined();
    expect(templates.statement('shape', () => expect.unreachable('built twice'), { a: 'y' }).parameters).toEqual(['y']);
  });

  it('keep values the builder wrote as constants', () => {
    const templates = new StatementTemplates();
    const compiled = templates.statement('shape', (slot) => db.selectFrom('t').select('a').where('a', '=', 'fixed').where('b', '=', slot<number>('b')), {
      b: 3,
    });
    expect(compiled.parameters).toEqual(['fixed', 3]);
  });

  it('keep at most their characters of SQL text: a shape past them makes the oldest go', () => {
    const text = db.selectFrom('t').select('a').where('a', '=', 'x').compile().sql;
    const templates = new StatementTemplates(1000, 3 * ('shape 0'.length + text.length));
    let builds = 0;
    const build = (slot: <T>(name: string) => T) => {
      builds += 1;
      return db.selectFrom('t').select('a').where('a', '=', slot<string>('a'));
    };
    for (const key of ['shape 0', 'shape 1', 'shape 2', 'shape 0']) templates.statement(key, build, { a: 'x' });
    expect(builds).toBe(3);
    templates.statement('shape 3', build, { a: 'x' });
    templates.statement('shape 2', build, { a: 'x' });
    expect(builds).toBe(4);
    templates.statement('shape 0', build, { a: 'x' });
    expect(builds).toBe(5);
  });
});
