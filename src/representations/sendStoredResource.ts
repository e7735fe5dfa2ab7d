import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { validationProblem } from '../core/problem.ts';
import { readRepresentation, representationQuerySchema, type RepresentationOffer, type RequestedRepresentation } from './representationQuery.ts';
import { reshapeRows } from './reshapeRows.ts';

/**
 * Answers GET-one with the record's stored representation (`{data}` around its JSON text), the
 * very text the lists splice into their pages: one owner for how a record reads. The live
 * renderers that writes use must render the same text (test/db/storedRenderers.test.ts).
 */
export function sendStoredResource(reply: FastifyReply, resource: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(`{"data":${resource}}`);
}

/** A single read's querystring and the wording of its errors: `fields[…]` and `expand[]` as its list takes them. */
export function singleReadRoute(offer: RepresentationOffer) {
  return {
    querystring: Type.Object(representationQuerySchema(offer), { additionalProperties: true }),
    config: { queryFieldErrors: (_errors: unknown, query: unknown) => readRepresentation(offer, (query ?? {}) as object).errors },
  };
}

/** The representation a single read asked for (undefined: as stored), or its 422. */
function readSingleRead(offer: RepresentationOffer, query: unknown): RequestedRepresentation | undefined {
  const { wanted, errors } = readRepresentation(offer, (query ?? {}) as object);
  if (Object.keys(errors).length > 0) throw validationProblem(errors);
  return wanted;
}

/**
 * Answers GET-one with the representation asked for: the stored text as it is, or trimmed and
 * expanded like a list's rows. The query is read before the record is looked for, so a bad
 * fieldset is a 422 whether or not the record exists.
 */
export async function answerSingleRead(
  reply: FastifyReply,
  offer: RepresentationOffer,
  query: unknown,
  tenantId: string,
  findResource: () => Promise<string>,
): Promise<FastifyReply> {
  const wanted = readSingleRead(offer, query);
  const resource = await findResource();
  if (!wanted) return sendStoredResource(reply, resource);
  const [shaped] = await reshapeRows(offer, wanted, tenantId, [resource]);
  return sendStoredResource(reply, shaped);
}
