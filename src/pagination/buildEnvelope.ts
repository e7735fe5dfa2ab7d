import { pageUrl, pageUrlBase } from './pageUrl.ts';
import type { Envelope } from './envelopeSchema.ts';
import { paginatorLinks } from './paginatorLinks.ts';

export interface EnvelopeInput<T> {
  /** Origin the links are built on, e.g. `http://localhost:3000`. */
  origin: string;
  /** Path and raw query exactly as requested, e.g. `/v3/payments?per_page=5&page=2`. */
  pathAndQuery: string;
  total: number;
  page: number;
  perPage: number;
  rows: T[];
}

export type { Envelope } from './envelopeSchema.ts';

export function lastPageOf(total: number, perPage: number): number {
  return Math.max(Math.ceil(total / perPage), 1);
}

/** The `{data, links, meta}` of Laravel's paginated resource collection; pure. */
export function buildEnvelope<T>(input: EnvelopeInput<T>): Envelope<T> {
  const { total, page, perPage, rows } = input;
  const base = pageUrlBase(input.origin, input.pathAndQuery);
  const urlFor = (n: number) => pageUrl(base, n);
  const lastPage = lastPageOf(total, perPage);
  const prev = page > 1 ? urlFor(page - 1) : null;
  const next = page < lastPage ? urlFor(page + 1) : null;
  const from = rows.length > 0 ? (page - 1) * perPage + 1 : null;
  const to = from === null ? null : from + rows.length - 1;
  return {
    data: rows,
    links: { first: urlFor(1), last: urlFor(lastPage), prev, next },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      links: paginatorLinks(page, lastPage, urlFor, prev, next),
      path: base.path,
      per_page: perPage,
      to,
      total,
    },
  };
}
