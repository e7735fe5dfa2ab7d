import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';

/**
 * The payments' dimensions whose index carries which others (migration 0028): a status index
 * carries currency and card brand, a currency index card brand.
 */
const CARRIED: Record<string, readonly string[]> = { status: ['currency', 'card_brand'], currency: ['card_brand'] };

/** Status first: its index carries the most. */
const LEADS = ['status', 'currency'] as const;

/**
 * SQLite, a payments list narrowed by two or three of status, currency and card brand (and maybe
 * a range or other filters): when one of them has a single value and its index carries the
 * others, they are written unindexed (`+currency in (…)`), so that the list is counted and walked
 * in that index alone, in the list's order (one value: the index gives created_at or amount order),
 * each entry's other dimensions tested in it. SQLite keeps no statistics and took whichever index
 * it liked, reading each entry's row to test the others (at 1M payments `status=succeeded &
 * currency=EUR & created_at ≥ …` read 700k rows: 2.7 s cold; its entries alone 0.1 s). With several
 * values in each, no index gives both: left as it is. Writing only: the same rows match. Not for one
 * account's list, which has indexes of its own.
 */
export function withLeadDimension(table: ListTable, scope: ListScope, query: ListQuery): ListQuery {
  if (table !== 'payments' || scope.accountId !== undefined || scope.endpointId !== undefined) return query;
  const narrowed = query.conditions.flatMap((c) => (c.match === 'in' && c.written === undefined ? [c] : []));
  const others = (lead: string) => narrowed.filter((c) => c.column !== lead);
  const lead = LEADS.find((d) => {
    const own = narrowed.find((c) => c.column === d);
    const rest = others(d);
    return own?.values.length === 1 && rest.length > 0 && rest.every((c) => CARRIED[d].includes(c.column));
  });
  if (!lead) return query;
  return {
    ...query,
    conditions: query.conditions.map((c) =>
      c.match === 'in' && c.written === undefined && CARRIED[lead].includes(c.column) ? { ...c, written: 'unindexed' as const } : c,
    ),
  };
}
