import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/db/schema.ts';
import { parseQueryString } from '../../../src/http/parseQueryString.ts';
import { DEFAULT_TUNING } from '../../../src/lists/plan/listTuning.ts';
import type { PlanCounts } from '../../../src/lists/plan/pagePlan.ts';
import { keyCheckedInStatement, nextQuestion, pageRequestOf, planPage, planRows, snapshotFallbackOf } from '../../../src/lists/plan/planPage.ts';
import { parseListQuery, type RawListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { paymentListSpec } from '../../../src/payments/paymentListSpec.ts';

const request = (dialect: Dialect, query: string, offset = 0, accountId?: string) =>
  pageRequestOf(
    dialect,
    DEFAULT_TUNING,
    'payments',
    { tenantId: 'ten_x', ...(accountId ? { accountId } : {}) },
    parseListQuery(paymentListSpec, parseQueryString(query) as RawListQuery),
    { page: Math.floor(offset / 15) + 1, perPage: 15, offset },
  );

const A_MONTH_BY_AMOUNT = 'filter[created_at][gte]=2026-03-01T00:00:00Z&filter[created_at][lt]=2026-04-01T00:00:00Z&sort=-amount';

describe('the page planner', () => {
  it('reads a first page of a counted slice by OFFSET in one statement, its total from list_counts, asking no count', () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const r = request(dialect, 'filter[status]=succeeded');
      expect(nextQuestion(r, {})).toBeUndefined();
      expect(planPage(r, {})).toMatchObject({ way: 'offset', total: { from: 'list_counts' }, rows: {} });
    }
  });

  it('places a deep page of a bucketed slice by its bucket counts, and PostgreSQL checks the key in that statement', () => {
    const r = request('postgres', 'filter[status]=succeeded&sort=-amount', 400_000);
    expect(planPage(r, {})).toMatchObject({ way: 'buckets', search: { column: 'amount', direction: 'desc' } });
    expect(keyCheckedInStatement(r)).toBe(true);
    expect(keyCheckedInStatement(request('sqlite', 'filter[status]=succeeded&sort=-amount', 400_000))).toBe(false);
  });

  it('on SQLite asks for a range’s counts first and walks the sort’s index or sorts the range’s ids by them; PostgreSQL chooses in the statement', () => {
    const sqlite = request('sqlite', A_MONTH_BY_AMOUNT);
    const question = nextQuestion(sqlite, {});
    expect(question?.ask).toBe('range-share');
    const few: PlanCounts = { rangeShare: { slice: 1_000_000, covered: 200 } };
    const many: PlanCounts = { rangeShare: { slice: 1_000_000, covered: 900_000 } };
    expect(nextQuestion(sqlite, few)).toBeUndefined();
    expect(planPage(sqlite, few)).toMatchObject({ way: 'offset', rows: { walk: false } });
    expect(planPage(sqlite, many)).toMatchObject({ way: 'offset', rows: { walk: true } });
    const postgres = request('postgres', A_MONTH_BY_AMOUNT);
    expect(nextQuestion(postgres, {})).toBeUndefined();
    expect(planPage(postgres, {}).way).toBe('range-choice');
  });

  it('asks for a keyed filter’s counts only where no range’s counts choose, and counts the total in its index when it holds few rows, else row by row', () => {
    const r = request('sqlite', 'filter[card_last4]=4242&filter[status]=succeeded');
    const question = nextQuestion(r, {});
    expect(question).toMatchObject({ ask: 'keyed', condition: { column: 'card_last4' } });
    const counts: PlanCounts = { keyed: { keyed: 40, size: 500_000, whole: 1_000_000 } };
    expect(nextQuestion(r, counts)).toBeUndefined();
    expect(planPage(r, counts)).toMatchObject({ way: 'offset', total: { from: 'keyed-index', column: 'card_last4' } });
    expect(planPage(r, { keyed: { keyed: 20_001, size: 1000, whole: 1_000_000 } })).toMatchObject({ total: { from: 'rows' }, rows: {} });
  });

  it('reads a metadata search of one value in its entries’ order at any depth, asking a lead’s counts only when several keys could lead', () => {
    const one = request('sqlite', 'filter[metadata][channel]=web', 400_000);
    expect(nextQuestion(one, {})).toBeUndefined();
    expect(planPage(one, {})).toEqual({ way: 'entries', list: one.whole });
    const two = request('postgres', 'filter[metadata][channel]=web&filter[metadata][tier]=gold', 30);
    expect(keyCheckedInStatement(two)).toBe(false);
    expect(nextQuestion(two, {})?.ask).toBe('entry-leads');
    expect(planPage(two, { entryLeads: { e0: 900, e1: 12 } })).toMatchObject({ way: 'entries', lead: 1 });
  });

  it('reads a deep page no counts place in a snapshot, from the nearer end', () => {
    const r = request('postgres', 'filter[status]=succeeded&filter[currency]=EUR', 900_000, 'acc_x');
    const plan = planPage(r, {});
    expect(plan).toMatchObject({ way: 'snapshot', total: { from: 'list_counts' } });
    if (plan.way !== 'snapshot') throw new Error('expected a snapshot plan');
    expect(planRows('postgres', DEFAULT_TUNING, plan, 1_000_000, r.paging)).toEqual({ fromEnd: true, skip: 99_985, limit: 15, read: 'deferred-join' });
    expect(planRows('sqlite', DEFAULT_TUNING, plan, 1_000_000, r.paging)?.read).toBe('skip-hops');
    expect(planRows('postgres', DEFAULT_TUNING, plan, 900_000, r.paging)).toBeUndefined();
  });

  it('falls back from a statement that chose in itself to the planned list, read in a snapshot', () => {
    const r = request('postgres', A_MONTH_BY_AMOUNT);
    const plan = planPage(r, {});
    if (plan.way === 'snapshot') throw new Error('expected a one-statement plan');
    const fallback = snapshotFallbackOf(r, plan);
    expect(fallback).toMatchObject({ way: 'snapshot', total: { from: 'list_buckets' }, rows: {} });
    expect(fallback.list.query).not.toEqual(r.whole.query); // its range written as a literal, planned for its value
  });

  it('is a pure function: the same request and counts give an equal plan, and planning changes neither', () => {
    const r = request('sqlite', A_MONTH_BY_AMOUNT, 5000);
    const counts: PlanCounts = { rangeShare: { slice: 1_000_000, covered: 900_000 } };
    const before = structuredClone({ r, counts });
    expect(planPage(r, counts)).toEqual(planPage(r, counts));
    expect({ r, counts }).toEqual(before);
  });
});
