import { isDeepStrictEqual } from 'node:util';

interface ListResponse {
  statusCode: number;
  body: string;
  json(): { meta: Record<string, unknown>; data: Array<{ id: string }>; links: { next: string | null } };
}

/**
 * A list response against the model's rows in list order at that moment: its meta and ids must be
 * exactly `OFFSET (page-1)*per_page LIMIT per_page` of them, and each record the stored one. A
 * mismatch names `where`, and shows ids with their position (1-based) in the current list.
 * Returns links.next (null at the end).
 */
export function expectOffsetPageOf<Row extends { id: string }>(
  response: ListResponse,
  url: string,
  all: Row[],
  where: string,
  rowsAre: string,
  storedOf: (row: Row) => unknown,
): string | null {
  if (response.statusCode !== 200) throw new Error(`${where}: expected 200, got ${response.statusCode} ${response.body}`);
  const body = response.json();
  const params = new URL(url, 'http://x').searchParams;
  const page = Number(params.get('page') ?? '1');
  const perPage = Number(params.get('per_page') ?? '10');
  const slice = all.slice((page - 1) * perPage, page * perPage);
  const position = new Map(all.map((r, i) => [r.id, i + 1]));
  const label = (id: string) => `${id}(#${position.get(id) ?? 'not in list'})`;
  const expected = {
    current_page: page,
    per_page: perPage,
    total: all.length,
    last_page: Math.max(1, Math.ceil(all.length / perPage)),
    from: slice.length ? (page - 1) * perPage + 1 : null,
    to: slice.length ? (page - 1) * perPage + slice.length : null,
    ids: slice.map((r) => label(r.id)),
  };
  const { current_page, per_page, total, last_page, from, to } = body.meta;
  const actual = { current_page, per_page, total, last_page, from, to, ids: body.data.map((r) => label(r.id)) };
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(
      `${where} is not OFFSET ${(page - 1) * perPage} LIMIT ${perPage} of the ${all.length} ${rowsAre} now:\n` +
        `  expected ${JSON.stringify(expected)}\n  actual   ${JSON.stringify(actual)}`,
    );
  }
  const stale = body.data.findIndex((resource, i) => !isDeepStrictEqual(resource, storedOf(slice[i])));
  if (stale >= 0) {
    throw new Error(
      `${where}: row ${stale + 1} is not the stored record:\n  expected ${JSON.stringify(storedOf(slice[stale]))}\n  actual   ${JSON.stringify(body.data[stale])}`,
    );
  }
  return body.links.next;
}
