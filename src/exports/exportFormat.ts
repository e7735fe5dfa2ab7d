import { Problem } from '../core/problem.ts';

export const EXPORT_MEDIA_TYPES = ['application/x-ndjson', 'text/csv'] as const;
export type ExportMediaType = (typeof EXPORT_MEDIA_TYPES)[number];

/**
 * The export format the Accept header asks for: NDJSON or CSV, by quality, NDJSON when either
 * would do (no header, `*\/*`, `application/*`…); undefined when neither is acceptable.
 */
export function exportMediaType(accept: string | undefined): ExportMediaType | undefined {
  if (accept === undefined || accept.trim() === '') return 'application/x-ndjson';
  let best: { type: ExportMediaType; q: number; exact: boolean } | undefined;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    for (const type of EXPORT_MEDIA_TYPES) {
      const exact = range === type;
      const matches = exact || range === '*/*' || range === `${type.split('/')[0]}/*`;
      if (!matches) continue;
      // A higher quality wins; at equal quality an exact type beats a wildcard, and NDJSON (first) beats CSV.
      if (!best || q > best.q || (q === best.q && exact && !best.exact)) best = { type, q, exact };
    }
  }
  return best?.type;
}

export function notAcceptable(): Problem {
  return new Problem('not-acceptable', { detail: `An export is sent as ${EXPORT_MEDIA_TYPES.join(' or ')}; ask for one of them in Accept.` });
}
