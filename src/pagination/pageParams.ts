import { Type } from 'typebox';
import { issue, validationProblem } from '../core/problem.ts';

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
export function parsePageParams(query: { page?: string; per_page?: string }): PageParams {
  const page = query.page === undefined ? 1 : Number(query.page);
  const perPage = query.per_page === undefined ? DEFAULT_PER_PAGE : Number(query.per_page);
  if (!Number.isSafeInteger(page * perPage)) {
    throw validationProblem({ page: [issue('out_of_range', `is too large: page × per_page must stay below ${Number.MAX_SAFE_INTEGER}`)] });
  }
  return { page, perPage, offset: (page - 1) * perPage };
}
