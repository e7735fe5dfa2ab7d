import { pageUrl, pageUrlBase } from './pageUrl.ts';
import type { Envelope } from './envelopeSchema.ts';
import { paginatorLinks } from './paginatorLinks.ts';

export interface PageFrameInput {
  /** Origin the links are built on, e.g. `http://localhost:3000`. */
  origin: string;
  /** Path and raw query exactly as requested, e.g. `/v3/payments?per_page=5&page=2`. */
  pathAndQuery: string;
  total: number;
  page: number;
  perPage: number;
  /** How many rows the page holds. */
  count: number;
}

export interface EnvelopeInput<T> extends Omit<PageFrameInput, 'count'> {
  rows: T[];
}

export type { Envelope } from './envelopeSchema.ts';

/** Everything of the envelope but its rows. */
export type PageFrame = Omit<Envelope<never>, 'data'>;

export function lastPageOf(total: number, perPage: number): number {
  return Math.max(Math.ceil(total / perPage), 1);
}

/** The `links` and `meta` of Laravel's paginated resource collection for a page of `count` rows; pure. */
export function buildPageFrame(input: PageFrameInput): PageFrame {
  const { total, page, perPage, count } = input;
  const base = pageUrlBase(input.origin, input.pathAndQuery);
  const urlFor = (n: number) => pageUrl(base, n);
  const lastPage = lastPageOf(total, perPage);
  const prev = page > 1 ? urlFor(page - 1) : null;
  const next = page < lastPage ? urlFor(page + 1) : null;
  const from = count > 0 ? (page - 1) * perPage + 1 : null;
  const to = from === null ? null : from + count - 1;
  return {
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

/** The `{data, links, meta}` of Laravel's paginated resource collection; pure. */
export function buildEnvelope<T>(input: EnvelopeInput<T>): Envelope<T> {
  const { rows, ...frame } = input;
  return { data: rows, ...buildPageFrame({ ...frame, count: rows.length }) };
}
