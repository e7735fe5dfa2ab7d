import { describe, expect, it } from 'vitest';
import { tenantFilterGaps } from './tenantFilters.ts';

const T = 'ten_a';

describe('tenantFilterGaps: whether a statement touches one tenant’s rows only', () => {
  it('finds none when every tenant table is pinned by an equality to the tenant', async () => {
    expect(await tenantFilterGaps('select resource from payments where tenant_id = $1 and status = $2 limit 5', [T, 'failed'], T)).toEqual([]);
    expect(await tenantFilterGaps(`copy (select resource from payments where "tenant_id" = 'ten_a') to stdout`, [], T)).toEqual([]);
    expect(await tenantFilterGaps('update accounts set name = $1 where id = $2 and tenant_id = $3', ['x', 'acc_1', T], T)).toEqual([]);
  });

  it('follows equalities through joins and into subqueries', async () => {
    const joined = 'select p.id from payments p join accounts a on a.tenant_id = p.tenant_id and a.id = p.account_id where p.tenant_id = $1';
    expect(await tenantFilterGaps(joined, [T], T)).toEqual([]);
    const nested = 'select count(*) from payments where tenant_id = $1 and id in (select record_id from payment_metadata where tenant_id = $2 and key = $3)';
    expect(await tenantFilterGaps(nested, [T, T, 'k'], T)).toEqual([]);
  });

  it('reports a reference with no filter, one under OR or an expression, and one pinned to another tenant', async () => {
    expect(await tenantFilterGaps('select resource from events where id = $1', ['evt_1'], T)).toEqual(['events: tenant_id not pinned by an equality']);
    expect(await tenantFilterGaps('select 1 from events where tenant_id = $1 or id = $2', [T, 'evt_1'], T)).toEqual([
      'events: tenant_id not pinned by an equality',
    ]);
    expect(await tenantFilterGaps(`select 1 from accounts where (tenant_id || '') = $1`, [T], T)).toEqual(['accounts: tenant_id not pinned by an equality']);
    expect(await tenantFilterGaps('select 1 from accounts where tenant_id = $1', ['ten_b'], T)).toEqual(['accounts: tenant_id pinned to ten_b, not ten_a']);
    const outerUnpinned = 'select resource from accounts where id in (select id from accounts where tenant_id = $1 limit 5)';
    expect(await tenantFilterGaps(outerUnpinned, [T], T)).toEqual(['accounts: tenant_id not pinned by an equality']);
  });

  it('checks the tenant of every row an insert writes, and leaves reference tables alone', async () => {
    expect(
      await tenantFilterGaps('insert into list_counts (tenant_id, list, n) values ($1, $2, $3), ($4, $5, $6)', [T, 'payments', 1, T, 'accounts', 1], T),
    ).toEqual([]);
    expect(
      await tenantFilterGaps('insert into list_counts (tenant_id, list, n) values ($1, $2, $3), ($4, $5, $6)', [T, 'payments', 1, 'ten_b', 'accounts', 1], T),
    ).toEqual(["insert into list_counts: a row's tenant_id is ten_b, not ten_a"]);
    expect(await tenantFilterGaps('select id, tenant_id from api_keys where key_hash = $1', ['h'], T)).toEqual([]);
  });

  it('checks the tenant of every row an insert from arrays (unnest) and a COPY FROM write', async () => {
    const fromArrays = 'insert into list_counts (tenant_id, list, n) select * from unnest($1::text[], $2::text[], $3::bigint[])';
    expect(
      await tenantFilterGaps(
        fromArrays,
        [
          [T, T],
          ['payments', 'accounts'],
          [1, 1],
        ],
        T,
      ),
    ).toEqual([]);
    expect(
      await tenantFilterGaps(
        fromArrays,
        [
          [T, 'ten_b'],
          ['payments', 'accounts'],
          [1, 1],
        ],
        T,
      ),
    ).toEqual(["insert into list_counts … unnest: a row's tenant_id is ten_b, not ten_a"]);
    const copy = 'copy accounts (id, tenant_id, name) from stdin';
    expect(await tenantFilterGaps(copy, [], T, ['acc_1\tten_a\tAda\nacc_2\tte', 'n_a\tBob\n'])).toEqual([]);
    expect(await tenantFilterGaps(copy, [], T, ['acc_1\tten_a\tAda\nacc_2\tten_b\tBob\n'])).toEqual([
      "copy into accounts: a row's tenant_id is ten_b, not ten_a",
    ]);
    expect(await tenantFilterGaps(copy, [], T)).toEqual(['copy into accounts: its rows were not seen']);
    expect(await tenantFilterGaps('copy accounts (id, name) from stdin', [], T, [])).toEqual(['copy into accounts: no tenant_id column']);
  });
});
