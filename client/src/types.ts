// Types come from the server's own TypeBox schemas (type-only imports, erased at run time), so
// the client cannot drift from what the server validates and serializes.
import type { Account } from '../../src/accounts/accountSchema.ts';
import type { Payment } from '../../src/payments/paymentSchema.ts';
import type { CreateAccountInput, UpdateAccountInput } from '../../src/accounts/accountWriteSchemas.ts';
import type { CreatePaymentInput } from '../../src/payments/paymentWriteSchemas.ts';
import type { Envelope } from '../../src/pagination/buildEnvelope.ts';

export type { Account, Payment, CreateAccountInput, UpdateAccountInput, CreatePaymentInput };

/** One page: the API's envelope (`data`, `links`, `meta`). */
export type Page<T> = Envelope<T>;

type OneOrMany<T> = T | readonly T[];
/** `filter[field][gte|gt|lte|lt]`. */
export interface Range<T> {
  gte?: T;
  gt?: T;
  lte?: T;
  lt?: T;
}
type Instant = string | Date;

export interface AccountFilter {
  status?: OneOrMany<Account['status']>;
  currency?: OneOrMany<string>;
  email?: string;
  name?: string;
  created_at?: Range<Instant>;
}

export interface PaymentFilter {
  status?: OneOrMany<Payment['status']>;
  currency?: OneOrMany<string>;
  account_id?: OneOrMany<string>;
  card_brand?: OneOrMany<Payment['card']['brand']>;
  card_last4?: OneOrMany<string>;
  reference?: string;
  amount?: Range<number>;
  created_at?: Range<Instant>;
}

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

export type AccountListParams = ListParams<AccountFilter, 'created_at' | 'name'>;
export type PaymentListParams = ListParams<PaymentFilter, 'created_at' | 'amount'>;
