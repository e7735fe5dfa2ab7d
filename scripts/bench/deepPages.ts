import { getJson, type Measured } from './scenarios.ts';

/**
 * Cold pages at any depth: for each list shape, page 1, the pages at 50 % and 90 % of
 * meta.last_page, and the last page, at the default per_page. Every request of a run asks for
 * the very same URL, so there is nothing a walker could have warmed.
 */
export const DEPTHS = ['page 1', '50 %', '90 %', 'last'] as const;
export type Depth = (typeof DEPTHS)[number];

export interface DeepCell {
  page: number;
  measured: Measured;
}

export interface DeepList {
  shape: string;
  total: number;
  perPage: number;
  lastPage: number;
  cells: Partial<Record<Depth, DeepCell>>;
}

export interface DeepPages {
  lists: DeepList[];
  /** `page=5000&per_page=100` on the default order; absent when the list is shorter. */
  page5000?: DeepCell;
  /** meta.last_page of the default order at per_page=100. */
  lastPageAt100: number;
}

export function pageAtDepth(lastPage: number, depth: Depth): number {
  switch (depth) {
    case 'page 1':
      return 1;
    case '50 %':
      return Math.min(lastPage, Math.max(2, Math.round(lastPage * 0.5)));
    case '90 %':
      return Math.min(lastPage, Math.max(2, Math.floor(lastPage * 0.9)));
    case 'last':
      return lastPage;
  }
}

/** The list shapes measured, given the account with the most payments. */
export function deepShapes(busiestAccount: string): Array<{ shape: string; query: string }> {
  return [
    { shape: 'default order', query: '' },
    { shape: 'filter[status]=succeeded', query: 'filter[status]=succeeded' },
    { shape: 'filter[account_id]=<busiest account>', query: `filter[account_id]=${busiestAccount}` },
    { shape: 'sort=amount', query: 'sort=amount' },
    { shape: 'sort=-amount', query: 'sort=-amount' },
  ];
}

export const urlOf = (base: string, query: string, page: number) => `${base}/payments?${query ? `${query}&` : ''}page=${page}`;

export async function measureDeepPages(
  base: string,
  key: string,
  shapes: Array<{ shape: string; query: string }>,
  run: (name: string, url: string) => Promise<Measured>,
): Promise<DeepPages> {
  const lists: DeepList[] = [];
  for (const { shape, query } of shapes) {
    const meta = (await getJson(urlOf(base, query, 1), key)).meta;
    const list: DeepList = { shape, total: meta.total, perPage: meta.per_page, lastPage: meta.last_page, cells: {} };
    for (const depth of DEPTHS) {
      const page = pageAtDepth(list.lastPage, depth);
      list.cells[depth] = { page, measured: await run(`${shape}: ${depth} (page ${page} of ${list.lastPage})`, urlOf(base, query, page)) };
    }
    lists.push(list);
  }
  const lastPageAt100 = (await getJson(`${base}/payments?per_page=100`, key)).meta.last_page as number;
  const page5000 = lastPageAt100 >= 5000 ? { page: 5000, measured: await run('page=5000&per_page=100', `${base}/payments?page=5000&per_page=100`) } : undefined;
  return { lists, page5000, lastPageAt100 };
}
