import { Type } from 'typebox';
import { issue, validationProblem, type FieldErrors, type FieldIssue } from '../../core/problem.ts';

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

const PAGING = {
  page: { min: 1, max: Number.MAX_SAFE_INTEGER, code: 'invalid_page', message: PAGE_MESSAGE },
  per_page: { min: 1, max: MAX_PER_PAGE, code: 'invalid_per_page', message: PER_PAGE_MESSAGE },
} as const;

const TOO_LARGE = `is too large: page × per_page must stay below ${Number.MAX_SAFE_INTEGER}`;

/**
 * One paging parameter as sent: its number, or the one thing wrong with it (given more than
 * once, written with a leading zero, too large, or not a whole number in range), each with its
 * own code, never two sentences where one is true.
 */
function readPagingValue(name: keyof typeof PAGING, value: unknown, fallback: number): { value: number } | { issue: FieldIssue } {
  const rule = PAGING[name];
  if (value === undefined) return { value: fallback };
  // `page[]=1` is a list of one: not a repetition, just not a number.
  if (Array.isArray(value) && value.length > 1) return { issue: issue('repeated_parameter', `is given ${value.length} times; give it once`) };
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value)) return { issue: issue(rule.code, rule.message) };
  const written = value.replace(/^0+(?=[0-9])/, '');
  const n = Number(written);
  if (name === 'page' && n > rule.max) return { issue: issue('out_of_range', TOO_LARGE) };
  if (n < rule.min || n > rule.max) return { issue: issue(rule.code, rule.message) };
  if (written !== value) return { issue: issue('leading_zero', `must be written without leading zeros: ${written}`) };
  return { value: n };
}

/** Paging values, or what is wrong with them, one sentence per parameter (the query schema's refusals of them are worded here too). */
export function readPageParams(query: { page?: unknown; per_page?: unknown }): { paging?: PageParams; errors: FieldErrors } {
  const page = readPagingValue('page', query.page, 1);
  const perPage = readPagingValue('per_page', query.per_page, DEFAULT_PER_PAGE);
  const errors: FieldErrors = {};
  if ('issue' in page) errors.page = [page.issue];
  if ('issue' in perPage) errors.per_page = [perPage.issue];
  if ('issue' in page || 'issue' in perPage) return { errors };
  if (!Number.isSafeInteger(page.value * perPage.value)) return { errors: { page: [issue('out_of_range', TOO_LARGE)] } };
  return { paging: { page: page.value, perPage: perPage.value, offset: (page.value - 1) * perPage.value }, errors: {} };
}
