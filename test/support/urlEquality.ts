/** Two URLs are equal when origin, path and the ordered decoded query pairs are (fixtures' README). */
export function canonicalUrl(url: string | null): string | null {
  if (url === null) return null;
  const u = new URL(url);
  const pairs = [...new URLSearchParams(u.search)];
  return JSON.stringify([u.origin, u.pathname, pairs]);
}

/** Replaces every URL string inside a value by its canonical form, for deep comparison. */
export function canonicalizeUrls<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'string' && /^https?:\/\//.test(v) ? canonicalUrl(v) : v)));
}
