import { Type } from 'typebox';
import { issue, validationProblem, type FieldErrors } from '../core/problem.ts';

export const MAX_PER_PAGE = 5000;
export const DEFAULT_PER_PAGE = 10;

export const PAGE_MESSAGE = 'must be an integer of at least 1';
export const PER_PAGE_MESSAGE = `must be an integer between 1 and ${MAX_PER_PAGE}`;

/** Query values arrive as text; the patterns admit plain decimal integers only (no `1e3`, `0x10`, `+5`). */
export const pageParamsSchema = {
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: `Page to return (default 1). ${PAGE_MESSAGE}.`, examples: ['1'] })),
  per_page: Type.Optional(
    Type.String({
      pattern: '^([1-9][0-9]{0,2}|[1-4][0-9]{3}|5000)$',
      description: `Results per page (default ${DEFAULT_PER_PAGE}). ${PER_PAGE_MESSAGE}.`,
      examples: ['10'],
    }),
  ),
};

export interface PageParams {
  page: number;
  perPage: number;
  offset: number;
}

/** Paging values from an already schema-checked query; rejects offsets past 2^53. */
export function parsePageParams(query: { page?: unknown; per_page?: unknown }): PageParams {
  const { paging, errors } = readPageParams(query);
  if (!paging) throw validationProblem(errors);
  return paging;
}

const digits = (value: unknown, fallback: number) =>
  value === undefined ? fallback : typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : undefined;

/** Paging values, or what is wrong with them beyond the schema (page × per_page past 2^53); skips values the schema refuses. */
export function readPageParams(query: { page?: unknown; per_page?: unknown }): { paging?: PageParams; errors: FieldErrors } {
  const page = digits(query.page, 1);
  const perPage = digits(query.per_page, DEFAULT_PER_PAGE);
  if (page === undefined || perPage === undefined) return { errors: {} };
  if (!Number.isSafeInteger(page * perPage)) {
    return { errors: { page: [issue('out_of_range', `is too large: page × per_page must stay below ${Number.MAX_SAFE_INTEGER}`)] } };
  }
  return { paging: { page, perPage, offset: (page - 1) * perPage }, errors: {} };
}
