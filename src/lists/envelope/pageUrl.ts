/**
 * Page URLs the way Laravel's `withQueryString()` forms them: every parameter the client sent,
 * in its order and its own encoding, except `page`; then `page=N` last.
 */
export interface PageUrlBase {
  /** Origin + path, no query: what `meta.path` shows. */
  path: string;
  /** The client's query pairs minus `page`, still encoded as sent, e.g. `filter[status]=failed`. */
  carried: string[];
}

/** The decoded key of one `key=value` pair, as qs reads it (`+` is a space; undecodable: as written). */
export function decodedKey(pair: string): string {
  const eq = pair.indexOf('=');
  const key = (eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** `origin` like `https://api.example.com`; `pathAndQuery` as the request line carries it. */
export function pageUrlBase(origin: string, pathAndQuery: string): PageUrlBase {
  const q = pathAndQuery.indexOf('?');
  const pathname = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q === -1 ? '' : pathAndQuery.slice(q + 1);
  const carried = query.split('&').filter((pair) => pair !== '' && decodedKey(pair) !== 'page');
  return { path: origin + pathname, carried };
}

export function pageUrl(base: PageUrlBase, page: number): string {
  const query = base.carried.length ? `${base.carried.join('&')}&page=${page}` : `page=${page}`;
  return `${base.path}?${query}`;
}
