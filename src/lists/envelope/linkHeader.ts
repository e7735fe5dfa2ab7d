import type { Envelope } from './buildEnvelope.ts';

/**
 * RFC 8288 `Link` value for a page: the same URLs as `links` in the body, in the order
 * first, prev, next, last (absent prev/next are left out). A URL keeps the client's own
 * encoding, so only what cannot stand inside `<…>` in a header (controls, space, `<`, `>`,
 * non-ASCII) is percent-encoded here.
 */
export function linkHeader(links: Envelope<unknown>['links']): string {
  const parts: string[] = [];
  for (const rel of ['first', 'prev', 'next', 'last'] as const) {
    const url = links[rel];
    if (url !== null) parts.push(`<${headerSafe(url)}>; rel="${rel}"`);
  }
  return parts.join(', ');
}

function headerSafe(url: string): string {
  return url.replace(/[^\x21-\x3b\x3d\x3f-\x7e]/gu, (c) => encodeURIComponent(c));
}
