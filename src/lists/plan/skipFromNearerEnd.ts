/**
 * How many rows a page skips when it is read from the nearer end of a list of `total` rows (the
 * last pages cost what the first ones do): the offset itself, or the rows after the page, whichever
 * is fewer. Pure.
 */
export function skipFromNearerEnd(total: number, offset: number, perPage: number): number {
  return Math.min(offset, Math.max(0, total - offset - perPage));
}
