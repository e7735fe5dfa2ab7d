import { sql, type RawBuilder } from 'kysely';
import type { SortKey } from '../request/parseListQuery.ts';
import { sortKeySql } from './applyListQuery.ts';
import { totalOrder } from '../plan/totalOrder.ts';

/** A row's place in a list: its sort-key values, then its id. */
export type Boundary = Array<string | number>;

/** The values of a row under the total order: what the next hop of a skip starts after. */
export function boundaryOf(row: Record<string, unknown>, sort: SortKey[]): Boundary {
  return totalOrder(sort).map((k) => row[k.column] as string | number);
}

/**
 * "Comes after this row" in the total order. One direction throughout: a row-value comparison
 * `(a, b, id) > (?, ?, ?)`, which both planners turn into an index range. Mixed directions:
 * the expanded OR form.
 */
export function afterBoundary(sort: SortKey[], boundary: Boundary): RawBuilder<boolean> {
  const order = totalOrder(sort);
  const columns = order.map((k) => sortKeySql(k));
  if (order.every((k) => k.direction === order[0].direction)) {
    const op = sql.raw(order[0].direction === 'asc' ? '>' : '<');
    return sql<boolean>`(${sql.join(columns)}) ${op} (${sql.join(boundary)})`;
  }
  const alternatives = order.map((key, i) => {
    const equalBefore = order.slice(0, i).map((_, j) => sql`${columns[j]} = ${boundary[j]}`);
    const beyond = sql`${columns[i]} ${sql.raw(key.direction === 'asc' ? '>' : '<')} ${boundary[i]}`;
    return sql`(${sql.join([...equalBefore, beyond], sql` and `)})`;
  });
  return sql<boolean>`(${sql.join(alternatives, sql` or `)})`;
}
