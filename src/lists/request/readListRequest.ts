import { mergeFieldErrors, validationProblem, type FieldErrors } from '../../core/problem.ts';
import type { SchemaError } from '../../core/queryErrors.ts';
import { readPageParams, type PageParams } from './pageParams.ts';
import type { ListSpec } from './listSpec.ts';
import { readListQuery, type ListQuery, type RawListQuery } from './parseListQuery.ts';
import { listQueryFieldErrors } from './queryErrors.ts';
import {
  readRepresentation,
  type RawRepresentationQuery,
  type RepresentationOffer,
  type RequestedRepresentation,
} from '../../representations/representationQuery.ts';

export type RawListRequest = RawListQuery & RawRepresentationQuery & { page?: unknown; per_page?: unknown };

export interface ListRequest {
  paging: PageParams;
  query: ListQuery;
  /** Undefined when the request named neither `fields` nor `expand`. */
  wanted: RequestedRepresentation | undefined;
}

/** Every mistake of a list request the schema cannot see: paging, filters and sort, fields and expand. */
export function listRequestErrors(spec: ListSpec, offer: RepresentationOffer | undefined, raw: RawListRequest): FieldErrors {
  const errors = mergeFieldErrors(readPageParams(raw).errors, readListQuery(spec, raw).errors);
  return offer ? mergeFieldErrors(errors, readRepresentation(offer, raw).errors) : errors;
}

/** A schema-checked list request, read; a 422 listing all its remaining mistakes at once. */
export function readListRequest(spec: ListSpec, offer: RepresentationOffer | undefined, raw: RawListRequest): ListRequest {
  const page = readPageParams(raw);
  const list = readListQuery(spec, raw);
  const representation = offer ? readRepresentation(offer, raw) : { errors: {}, wanted: undefined };
  const errors = mergeFieldErrors(mergeFieldErrors(page.errors, list.errors), representation.errors);
  if (!page.paging || Object.keys(errors).length > 0) throw validationProblem(errors);
  return { paging: page.paging, query: list.query, wanted: representation.wanted };
}

/**
 * A list's 422 when its schema refused the query: the schema's findings, worded for lists, and
 * the mistakes only reading finds, in one answer (not one round for each).
 */
export function listSchemaFieldErrors(spec: ListSpec, offer: RepresentationOffer | undefined, errors: readonly SchemaError[], raw: unknown): FieldErrors {
  const query = typeof raw === 'object' && raw !== null ? (raw as RawListRequest) : {};
  return mergeFieldErrors(listQueryFieldErrors(spec, errors), listRequestErrors(spec, offer, query));
}
