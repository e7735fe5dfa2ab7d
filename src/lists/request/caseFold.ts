/**
 * How the case-insensitive filters (`filter[email]`, `filter[name]`) compare text, the same on
 * both databases: each account stores its name and email folded (written by the renderer every
 * write goes through, accountResource.ts), the filter value is folded the same way, and the
 * database compares folded text as plain bytes. Neither database's own case mapping is used:
 * SQLite's `lower()` and `LIKE` fold ASCII only, PostgreSQL's depend on the server's locale.
 *
 * The folding: compatibility forms first (NFKC: full-width `Ａ` is `A`, the ligature `ﬁ` is
 * `fi`, a decomposed `é` is `é`), then Unicode's full case folding, approximated by lower-,
 * upper- then lower-casing (so `ß` and `ẞ` match `ss`, and `ΐ`, `ᾳ` their expansions), with the final
 * sigma `ς` read as `σ` (lower-casing puts `ς` at the end of a word, so `ΟΔΟΣ` must still match
 * `οδοσ` and `οδος`). `İ` folds to `i̇` (i and a combining dot, as Unicode folds it), so it
 * matches `i̇` but not a plain `i`; a dotless `ı` upper-cases to `I` and so matches `i`
 * (more lenient than Unicode's folding, which keeps it apart). Accents are not removed: `é` is
 * not `e`.
 *
 * Migration 0009 keeps its own copy of this as it stood then; changing it needs a migration that
 * folds the stored columns again.
 */
export function caseFold(text: string): string {
  return text.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().replaceAll('ς', 'σ').normalize('NFKC');
}
