import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { afterBoundary, boundaryOf } from '../../../src/lists/sql/keyset.ts';
import { totalOrder } from '../../../src/lists/plan/totalOrder.ts';

const db = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});
const compiled = (expression: ReturnType<typeof afterBoundary>) => expression.compile(db);

describe('keyset', () => {
  it('ends every order with id, in the last key’s direction', () => {
    expect(totalOrder([{ column: 'amount', direction: 'desc' }])).toEqual([
      { column: 'amount', direction: 'desc' },
      { column: 'id', direction: 'desc' },
    ]);
    expect(totalOrder([])).toEqual([{ column: 'id', direction: 'asc' }]);
  });

  it('reads a row’s boundary in that order', () => {
    expect(boundaryOf({ id: 'pay_1', amount: 5, created_at: 'x' }, [{ column: 'amount', direction: 'asc' }])).toEqual([5, 'pay_1']);
  });

  it('compares a row value when every key runs one way', () => {
    const { sql, parameters } = compiled(afterBoundary([{ column: 'amount', direction: 'desc' }], [5, 'pay_1']));
    expect(sql).toBe('("amount", "id") < (?, ?)');
    expect(parameters).toEqual([5, 'pay_1']);
  });

  it('spells out the OR form when directions differ', () => {
    const sort = [
      { column: 'amount', direction: 'desc' as const },
      { column: 'created_at', direction: 'asc' as const },
    ];
    const { sql, parameters } = compiled(afterBoundary(sort, [5, 't', 'pay_1']));
    expect(sql).toBe('(("amount" < ?) or ("amount" = ? and "created_at" > ?) or ("amount" = ? and "created_at" = ? and "id" > ?))');
    expect(parameters).toEqual([5, 5, 't', 5, 't', 'pay_1']);
  });
});
