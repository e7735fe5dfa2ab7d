import type { Envelope } from './buildEnvelope.ts';

/** Writes an envelope whose rows are already JSON text (built by the database): no re-parsing. */
export function envelopeJson(envelope: Envelope<string>): string {
  return `{"data":[${envelope.data.join(',')}],"links":${JSON.stringify(envelope.links)},"meta":${JSON.stringify(envelope.meta)}}`;
}
