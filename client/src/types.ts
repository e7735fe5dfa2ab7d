// The API's shapes come from apiTypes.ts, generated from the server's schemas and list specs
// (`npm run generate`; a test fails when it is stale), so the client cannot drift from what the
// server validates and serializes, and it imports nothing outside client/.
import type {
  Account,
  AccountFieldName,
  AccountFilter,
  AccountSortField,
  Event,
  EventFieldName,
  EventFilter,
  EventSortField,
  Payment,
  PaymentExpansion,
  PaymentFieldName,
  PaymentFilter,
  PaymentSortField,
} from './apiTypes.ts';

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
  AccountFieldName,
  PaymentFieldName,
  EventFieldName,
  PaymentExpansion,
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

/** Sparse fieldsets and expansion of account reads: `{ fields: { accounts: ['id', 'name'] } }`. */
export interface AccountReadParams {
  fields?: { accounts?: readonly AccountFieldName[] };
}
/** Of payment reads: `{ fields: { payments: ['id', 'amount'], accounts: ['name'] }, expand: ['account'] }` (`fields.accounts` trims the expanded account). */
export interface PaymentReadParams {
  fields?: { payments?: readonly PaymentFieldName[]; accounts?: readonly AccountFieldName[] };
  expand?: readonly PaymentExpansion[];
}
/** Of event reads. */
export interface EventReadParams {
  fields?: { events?: readonly EventFieldName[] };
}

/** An account as a read with these parameters returns it: only the fields asked for. */
export type AccountAs<P> = P extends { fields: { accounts: ReadonlyArray<infer F extends AccountFieldName> } } ? Pick<Account, F> : Account;
/** A payment as a read with these parameters returns it: its fieldset, and `account` when expanded. */
export type PaymentAs<P> = (P extends { fields: { payments: ReadonlyArray<infer F extends PaymentFieldName> } } ? Pick<Payment, F> : Payment) &
  (P extends { expand: ReadonlyArray<'account'> } ? { account: AccountAs<P> } : unknown);
/** An event as a read with these parameters returns it. */
export type EventAs<P> = P extends { fields: { events: ReadonlyArray<infer F extends EventFieldName> } } ? Pick<Event, F> : Event;

export type AccountListParams = ListParams<AccountFilter, AccountSortField> & AccountReadParams;
export type PaymentListParams = ListParams<PaymentFilter, PaymentSortField> & PaymentReadParams;
export type EventListParams = ListParams<EventFilter, EventSortField> & EventReadParams;

/** An export's parameters: the list's filters and sort, no paging (exportRecords.ts). */
export type AccountExportParams = Pick<ListParams<AccountFilter, AccountSortField>, 'filter' | 'sort'>;
export type PaymentExportParams = Pick<ListParams<PaymentFilter, PaymentSortField>, 'filter' | 'sort'>;
