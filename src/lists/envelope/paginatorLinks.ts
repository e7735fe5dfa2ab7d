import type { Envelope } from './envelopeSchema.ts';

/**
 * `meta.links` exactly as Laravel's LengthAwarePaginator::linkCollection() renders it through
 * UrlWindow with onEachSide = 3: all pages when there are fewer than 14, otherwise a window
 * near the start, near the end, or around the current page, joined by `...` entries.
 */
export type PaginatorLink = Envelope<unknown>['meta']['links'][number];

const ON_EACH_SIDE = 3;
export const PREVIOUS_LABEL = '&laquo; Previous';
export const NEXT_LABEL = 'Next &raquo;';

type Range = [from: number, to: number];

/** The page ranges UrlWindow yields, in render order (each after the first follows a `...`). */
function windowRanges(currentPage: number, lastPage: number): Range[] {
  if (lastPage < ON_EACH_SIDE * 2 + 8) return [[1, lastPage]];
  const window = ON_EACH_SIDE + 4;
  const start: Range = [1, 2];
  const finish: Range = [lastPage - 1, lastPage];
  if (currentPage <= window) return [[1, window + ON_EACH_SIDE], finish];
  if (currentPage > lastPage - window) return [start, [lastPage - (window + (ON_EACH_SIDE - 1)), lastPage]];
  return [start, [currentPage - ON_EACH_SIDE, currentPage + ON_EACH_SIDE], finish];
}

export function paginatorLinks(
  currentPage: number,
  lastPage: number,
  urlFor: (page: number) => string,
  prevUrl: string | null,
  nextUrl: string | null,
): PaginatorLink[] {
  const links: PaginatorLink[] = [{ url: prevUrl, label: PREVIOUS_LABEL, active: false }];
  windowRanges(currentPage, lastPage).forEach((range, i) => {
    if (i > 0) links.push({ url: null, label: '...', active: false });
    for (let page = range[0]; page <= range[1]; page++) {
      links.push({ url: urlFor(page), label: String(page), active: page === currentPage });
    }
  });
  links.push({ url: nextUrl, label: NEXT_LABEL, active: false });
  return links;
}
