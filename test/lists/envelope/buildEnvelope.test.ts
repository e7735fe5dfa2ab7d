import { describe, expect, it } from 'vitest';
import { buildEnvelope } from '../../../src/lists/envelope/buildEnvelope.ts';
import cases from '../../fixtures/pagination-envelope.json' with { type: 'json' };
import { canonicalizeUrls } from '../../support/urlEquality.ts';

interface FixtureCase {
  note: string;
  request: string;
  total: number;
  expected: { data_count: number; links: unknown; meta: unknown };
}

function pagingOf(request: string) {
  const params = new URL(request).searchParams;
  return { page: Number(params.get('page') ?? 1), perPage: Number(params.get('per_page') ?? 10) };
}

describe('buildEnvelope reproduces Laravel’s paginator', () => {
  it.each((cases as FixtureCase[]).map((c) => [c.note, c] as const))('%s', (_note, c) => {
    const { page, perPage } = pagingOf(c.request);
    const url = new URL(c.request);
    const rowCount = c.expected.data_count;
    const envelope = buildEnvelope({
      origin: url.origin,
      pathAndQuery: c.request.slice(url.origin.length),
      total: c.total,
      page,
      perPage,
      rows: Array.from({ length: rowCount }, (_, i) => ({ i })),
    });
    expect(envelope.data).toHaveLength(rowCount);
    expect(canonicalizeUrls(envelope.links)).toEqual(canonicalizeUrls(c.expected.links));
    expect(canonicalizeUrls(envelope.meta)).toEqual(canonicalizeUrls(c.expected.meta));
  });

  it('keeps the client’s own parameter order and encoding, with page last', () => {
    const envelope = buildEnvelope({
      origin: 'http://h',
      pathAndQuery: '/v3/payments?page=2&filter%5Bstatus%5D=failed&sort=-amount',
      total: 30,
      page: 2,
      perPage: 10,
      rows: [],
    });
    expect(envelope.links.next).toBe('http://h/v3/payments?filter%5Bstatus%5D=failed&sort=-amount&page=3');
  });
});
