// Types come from the server's own TypeBox schemas (type-only imports, erased at run time), so
// the client cannot drift from what the server validates and serializes.
import type { Account } from '../../src/accounts/accountSchema.ts';
import type { Payment } from '../../src/payments/paymentSchema.ts';
import type { CreateAccountInput, UpdateAccountInput } from '../../src/accounts/accountWriteSchemas.ts';
import type { CreatePaymentInput } from '../../src/payments/paymentWriteSchemas.ts';
import type { Envelope } from '../../src/pagination/envelopeSchema.ts';
import type { accountListSpec } from '../../src/accounts/accountListSpec.ts';
import type { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import type { FiltersOf, Range, SortFieldOf } from '../../src/listing/listSpec.ts';

export type { Account, Payment, CreateAccountInput, UpdateAccountInput, CreatePaymentInput };

/** One page: the API's envelope (`data`, `links`, `meta`). */
export type Page<T> = Envelope<T>;

type Instant = string | Date;

/** Filters and sort fields come from the server's list specs: what it accepts is what the types allow. */
export type AccountFilter = FiltersOf<typeof accountListSpec, Instant>;
export type PaymentFilter = FiltersOf<typeof paymentListSpec, Instant>;
export type { Range };

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

export type AccountListParams = ListParams<AccountFilter, SortFieldOf<typeof accountListSpec>>;
export type PaymentListParams = ListParams<PaymentFilter, SortFieldOf<typeof paymentListSpec>>;

/** An export's parameters: the list's filters and sort, no paging (exportRecords.ts). */
export type AccountExportParams = Pick<AccountListParams, 'filter' | 'sort'>;
export type PaymentExportParams = Pick<PaymentListParams, 'filter' | 'sort'>;
