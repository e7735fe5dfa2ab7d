import { expect } from 'vitest';
import type { TestContext } from './testApp.ts';

/**
 * Reads every page of `/v3/payments?<query>` and the one past the end, `perPage` a page, each
 * against `want` (the matching ids in list order): the total and the page's ids. Returns each
 * page's `X-Page-Strategy`, by page number.
 */
export async function readEveryPage(t: TestContext, key: string, query: string, want: string[], perPage: number): Promise<Map<number, string>> {
  const last = Math.max(1, Math.ceil(want.length / perPage));
  const strategies = new Map<number, string>();
  for (let page = 1; page <= last + 1; page++) {
    const response = await t.get(`/v3/payments?${query}&per_page=${perPage}&page=${page}`, key);
    expect(response.status, query).toBe(200);
    expect(response.body.meta.total, `${query} total`).toBe(want.length);
    expect(
      response.body.data.map((p: { id: string }) => p.id),
      `${query} page ${page}`,
    ).toEqual(want.slice((page - 1) * perPage, page * perPage));
    strategies.set(page, String(response.headers['x-page-strategy']));
  }
  return strategies;
}
