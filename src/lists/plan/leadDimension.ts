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
 * SQLite: a payments list narrowed by two or three of status, currency and card brand, one with a single value
 * whose index carries the others: those others are written unindexed (`+currency in (…)`), so the list is counted
 * and walked in that one index, in list order, rather than SQLite reading each entry's row to test them (decision
 * 0029). Several values in each, or one account's list (indexes of its own): left as is. Same rows either way.
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
