/**
 * Case-insensitive filters compare folded text as plain bytes, the same on both databases: neither's own case
 * mapping is used (SQLite's folds ASCII only, PostgreSQL's follows the server's locale). NFKC, then full case
 * folding approximated by lower-, upper-, then lower-casing, a final `ς` read as `σ`; accents kept. The folds a
 * user meets: docs/lists.md, caseFold.e2e.test.ts. Migration 0009 keeps its own copy: a change needs a refold.
 */
export function caseFold(text: string): string {
  return text.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().replaceAll('ς', 'σ').normalize('NFKC');
}
