import { fieldsetRenderer } from './fieldsetRenderer.ts';
import type { RepresentationOffer, RequestedRepresentation } from './representationQuery.ts';

type Record = { [field: string]: unknown };

/** The fields of `record` that `keep` names (all when undefined), in the record's own order, with `embedded` placed after `after`. */
function trimmed(record: Record, keep: ReadonlySet<string> | undefined, embedded?: Map<string, unknown>): Record {
  const out: Record = {};
  for (const field in record) {
    if (keep === undefined || keep.has(field)) out[field] = record[field];
    const embed = embedded?.get(field);
    if (embed !== undefined) Object.assign(out, embed);
  }
  return out;
}

/**
 * For a request that names fieldsets but expands nothing: each stored text trimmed on its own
 * (cut out without parsing when the fieldset allows: fieldsetRenderer.ts), so a page can be
 * written row by row as its rows arrive (listHandler.ts). Undefined when the request expands
 * something: those rows are loaded together (reshapeRows).
 */
export function rowTrimmer(offer: RepresentationOffer, wanted: RequestedRepresentation): ((row: string) => string) | undefined {
  if (wanted.expand.length > 0) return undefined;
  const keep = wanted.fields.get(offer.own.type);
  const trim = (row: string) => JSON.stringify(trimmed(JSON.parse(row) as Record, keep));
  return keep && offer.own.schema ? fieldsetRenderer(offer.own.schema, keep, trim) : trim;
}

/**
 * A page's (or one read's) stored representations as the request asked for them: trimmed to
 * its fieldset, with expansions loaded in one query each and placed beside the id they expand.
 * Only called when the request named `fields` or `expand`: the usual read splices the stored
 * text untouched. Parsing here (rather than projecting in SQL) measured as fast on both
 * databases and keeps one code path for both (docs/performance.md).
 */
export async function reshapeRows(offer: RepresentationOffer, wanted: RequestedRepresentation, tenantId: string, rows: readonly string[]): Promise<string[]> {
  const keep = wanted.fields.get(offer.own.type);
  const records = rows.map((row) => JSON.parse(row) as Record);
  const loaded = await Promise.all(
    wanted.expand.map(async (expansion) => {
      const ids = [...new Set(records.map((r) => r[expansion.idField]).filter((id): id is string => typeof id === 'string'))];
      const texts = await expansion.load(tenantId, ids);
      const inner = wanted.fields.get(expansion.embeds.type);
      const byId = new Map<string, Record>();
      for (const [id, text] of texts) byId.set(id, trimmed(JSON.parse(text) as Record, inner));
      return { expansion, byId };
    }),
  );
  return records.map((record) => {
    let embedded: Map<string, unknown> | undefined;
    for (const { expansion, byId } of loaded) {
      embedded ??= new Map();
      // A record whose expanded resource is gone (never, while accounts with payments cannot be deleted) shows null.
      embedded.set(expansion.idField, { [expansion.name]: byId.get(record[expansion.idField] as string) ?? null });
    }
    return JSON.stringify(trimmed(record, keep, embedded));
  });
}
