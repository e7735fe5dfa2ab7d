import { describe, expect, it } from 'vitest';
import { Problem } from '../../../src/core/problem.ts';
import { accountListSpec } from '../../../src/accounts/accountListSpec.ts';
import { MAX_FILTER_VALUES } from '../../../src/lists/request/listQuerySchema.ts';
import { parseListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { paymentListSpec } from '../../../src/payments/paymentListSpec.ts';

function problemOf(run: () => unknown): Problem {
  try {
    run();
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('expected a problem');
}

describe('parseListQuery', () => {
  it('sorts by the spec’s default when no sort is given', () => {
    expect(parseListQuery(paymentListSpec, {})).toEqual({ conditions: [], sort: [{ column: 'created_at', direction: 'asc' }] });
  });

  it('reads several sort keys, a leading - as descending, in the order given', () => {
    expect(parseListQuery(paymentListSpec, { sort: '-amount,created_at' }).sort).toEqual([
      { column: 'amount', direction: 'desc' },
      { column: 'created_at', direction: 'asc' },
    ]);
  });

  it('refuses a sort key named twice', () => {
    expect(problemOf(() => parseListQuery(paymentListSpec, { sort: 'amount,-amount' })).errors).toEqual({
      sort: [{ code: 'repeated_sort', message: 'names amount more than once' }],
    });
  });

  it('turns any-of filters into one condition with each value once', () => {
    expect(parseListQuery(paymentListSpec, { filter: { status: 'failed,succeeded,failed' } }).conditions).toEqual([
      { column: 'status', match: 'in', values: ['failed', 'succeeded'] },
    ]);
  });

  it(`refuses more than ${MAX_FILTER_VALUES} values in one filter`, () => {
    const many = Array.from({ length: MAX_FILTER_VALUES + 1 }, (_, i) => `acc_${String(i).padStart(26, '0')}`).join(',');
    expect(problemOf(() => parseListQuery(paymentListSpec, { filter: { account_id: many } })).errors).toHaveProperty(['filter[account_id]']);
  });

  it('compares case-insensitive filters with folded text, and exact ones as given', () => {
    expect(parseListQuery(accountListSpec, { filter: { email: 'Ann@Example.COM', name: 'STRASSE' } }).conditions).toEqual([
      { column: 'email_folded', match: 'equals', value: 'ann@example.com' },
      { column: 'name_folded', match: 'contains', value: 'strasse' },
    ]);
    expect(parseListQuery(paymentListSpec, { filter: { reference: 'Ref-1' } }).conditions).toEqual([{ column: 'reference', match: 'equals', value: 'Ref-1' }]);
  });

  it('reads integer ranges as numbers and time ranges as UTC instants in milliseconds', () => {
    const { conditions } = parseListQuery(paymentListSpec, {
      filter: { amount: { gte: '100', lt: '200' }, created_at: { gt: '2026-01-02T03:04:05+01:00', lte: '2026-02-01' } },
    });
    expect(conditions).toEqual([
      { column: 'amount', match: 'range', op: 'gte', value: 100 },
      { column: 'amount', match: 'range', op: 'lt', value: 200 },
      { column: 'created_at', match: 'range', op: 'gt', value: '2026-01-02T02:04:05.000Z' },
      { column: 'created_at', match: 'range', op: 'lte', value: '2026-02-01T00:00:00.000Z' },
    ]);
  });

  it('refuses a calendar date that does not exist and a year outside 0001–9999, naming the bound', () => {
    const problem = problemOf(() => parseListQuery(paymentListSpec, { filter: { created_at: { gte: '2026-02-30', lt: '0000-01-01' } } }));
    expect(Object.keys(problem.errors ?? {}).sort()).toEqual(['filter[created_at][gte]', 'filter[created_at][lt]']);
  });

  it('ignores a filter name the spec does not have (the schema refuses it before)', () => {
    expect(parseListQuery(paymentListSpec, { filter: { colour: 'red' } }).conditions).toEqual([]);
  });
});
