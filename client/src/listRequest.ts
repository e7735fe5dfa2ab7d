import type { Page } from './types.ts';
import type { CallOptions, Transport } from './transport.ts';

type Query = Record<string, unknown>;

/** What a list request may carry. */
export interface ListQueryParams {
  filter?: object;
  sort?: string;
  perPage?: number;
  page?: number;
  fields?: object;
  expand?: readonly string[];
}

/** `filter[a]=x,y&filter[b][gte]=1&sort=-b&per_page=100&page=2&fields[payments]=id,amount&expand[]=account`, keeping brackets readable. */
export function listQueryString(params: ListQueryParams): string {
  const parts: string[] = [];
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (value instanceof Date) value = value.toISOString();
    if (Array.isArray(value)) {
      parts.push(`${name}=${value.map((v) => encodeURIComponent(String(v))).join(',')}`);
      return;
    }
    if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value as Query)) add(`${name}[${key}]`, inner);
      return;
    }
    parts.push(`${name}=${encodeURIComponent(String(value))}`);
  };
  for (const [key, value] of Object.entries((params.filter ?? {}) as Query)) add(`filter[${key}]`, value);
  add('sort', params.sort);
  add('per_page', params.perPage);
  add('page', params.page);
  for (const [type, names] of Object.entries((params.fields ?? {}) as Query)) add(`fields[${type}]`, names);
  for (const name of params.expand ?? []) parts.push(`expand[]=${encodeURIComponent(name)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/**
 * A list, lazily: iterate it with `for await` for every item (following `links.next` until
 * it is null), walk `.pages()` for whole envelopes, or fetch one `.page(n)`.
 */
export class ListRequest<T> implements AsyncIterable<T> {
  private readonly transport: Transport;
  private readonly path: string;
  private readonly params: ListQueryParams;
  private readonly options: CallOptions;

  /** `options` apply to each page's request (a time limit per page; a signal ends the walk). */
  constructor(transport: Transport, path: string, params: ListQueryParams, options: CallOptions = {}) {
    this.transport = transport;
    this.path = path;
    this.params = params;
    this.options = options;
  }

  /** One page by number (a page past the last is empty, not an error). */
  async page(page: number): Promise<Page<T>> {
    return (await this.transport.request<Page<T>>('GET', `${this.path}${listQueryString({ ...this.params, page })}`, undefined, this.options)).body;
  }

  /** Every page from the starting one, each fetched when the previous has been consumed. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let next: string | null = `${this.path}${listQueryString(this.params)}`;
    while (next !== null) {
      const page: Page<T> = (await this.transport.request<Page<T>>('GET', next, undefined, this.options)).body;
      yield page;
      next = page.data.length === 0 ? null : page.links.next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Everything into an array: for small lists only. */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
