// The API's shapes come from apiTypes.ts, generated from the server's schemas and list specs
// (`npm run generate`; a test fails when it is stale), so the client cannot drift from what the
// server validates and serializes, and it imports nothing outside client/.
import type { AccountFilter, AccountSortField, EventFilter, EventSortField, PaymentFilter, PaymentSortField } from './apiTypes.ts';

export type {
  Account,
  Payment,
  CreateAccountInput,
  UpdateAccountInput,
  CreatePaymentInput,
  CaptureInput,
  RefundInput,
  Page,
  AccountFilter,
  PaymentFilter,
  Event,
  EventFilter,
  OneOrMany,
} from './apiTypes.ts';

/** `field` or `-field` (descending), comma-separated for several keys. */
export type Sort<F extends string> = `${'' | '-'}${F}` | `${'' | '-'}${F},${string}`;

export interface ListParams<Filter, SortField extends string> {
  filter?: Filter;
  sort?: Sort<SortField>;
  /** 1–5000 (default 10). Larger pages: fewer requests, each slower. */
  perPage?: number;
  /** Where to start (default 1). */
  page?: number;
}

export type AccountListParams = ListParams<AccountFilter, AccountSortField>;
export type PaymentListParams = ListParams<PaymentFilter, PaymentSortField>;
export type EventListParams = ListParams<EventFilter, EventSortField>;

/** An export's parameters: the list's filters and sort, no paging (exportRecords.ts). */
export type AccountExportParams = Pick<AccountListParams, 'filter' | 'sort'>;
export type PaymentExportParams = Pick<PaymentListParams, 'filter' | 'sort'>;
