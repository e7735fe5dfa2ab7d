// Generated from the API's schemas (the OpenAPI document's components) and list specs by `npm run generate`;
// test/client/types.test.ts fails when it is not current. Do not edit.

/** An account, as the API returns it. */
export type Account = {
  id: string;
  name: string;
  email: string;
  /** Default currency, ISO 4217 */
  currency: string;
  status: 'active' | 'suspended' | 'closed';
  /** string → string, at most 50 keys */
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
};

/** A card payment, as the API returns it. */
export type Payment = {
  id: string;
  account_id: string;
  /** In the currency’s minor unit */
  amount: number;
  currency: string;
  status: 'pending' | 'authorized' | 'succeeded' | 'failed' | 'canceled' | 'refunded' | 'partially_refunded';
  amount_refunded: number;
  /** The reason given with the latest refund that gave one */
  refund_reason: string | null;
  method: 'card';
  card: {
    brand: 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners' | 'unionpay';
    last4: string;
    exp_month: number;
    exp_year: number;
    /** Keyed hash of the card number: the same card gives the same value */
    fingerprint: string;
  };
  description: string | null;
  reference: string | null;
  failure_code: string | null;
  failure_message: string | null;
  /** string → string, at most 50 keys */
  metadata: Record<string, string>;
  captured_at: string | null;
  created_at: string;
  updated_at: string;
};

/** One event (GET /v3/events, and the body of every webhook delivery). */
export type Event = {
  id: string;
  type: 'account.created' | 'account.updated' | 'account.closed' | 'account.deleted' | 'payment.created' | 'payment.authorized' | 'payment.succeeded' | 'payment.failed' | 'payment.canceled' | 'payment.refunded' | 'payment.partially_refunded';
  created_at: string;
  /** The account (account.*) or payment (payment.*) */
  data: {
    id: string;
    name: string;
    email: string;
    /** Default currency, ISO 4217 */
    currency: string;
    status: 'active' | 'suspended' | 'closed';
    /** string → string, at most 50 keys */
    metadata: Record<string, string>;
    created_at: string;
    updated_at: string;
  } | {
    id: string;
    account_id: string;
    /** In the currency’s minor unit */
    amount: number;
    currency: string;
    status: 'pending' | 'authorized' | 'succeeded' | 'failed' | 'canceled' | 'refunded' | 'partially_refunded';
    amount_refunded: number;
    /** The reason given with the latest refund that gave one */
    refund_reason: string | null;
    method: 'card';
    card: {
      brand: 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners' | 'unionpay';
      last4: string;
      exp_month: number;
      exp_year: number;
      /** Keyed hash of the card number: the same card gives the same value */
      fingerprint: string;
    };
    description: string | null;
    reference: string | null;
    failure_code: string | null;
    failure_message: string | null;
    /** string → string, at most 50 keys */
    metadata: Record<string, string>;
    captured_at: string | null;
    created_at: string;
    updated_at: string;
  };
};

/** The body of POST /v3/accounts. */
export type CreateAccountInput = {
  name: string;
  email: string;
  /** ISO 4217 code, upper case */
  currency: string;
  status?: 'active' | 'suspended';
  /** string → string; at most 50 keys of 1–40 letters, digits or _ . : -, values up to 500 characters */
  metadata?: Record<string, string>;
};

/** The body of PATCH /v3/accounts/{account} (at least one field). */
export type UpdateAccountInput = {
  name?: string;
  email?: string;
  status?: 'active' | 'suspended' | 'closed';
  /** string → string; at most 50 keys of 1–40 letters, digits or _ . : -, values up to 500 characters */
  metadata?: Record<string, string>;
};

/** The body of POST /v3/payments. */
export type CreatePaymentInput = {
  account_id: string;
  /** In the currency’s minor unit */
  amount: number;
  currency: string;
  description?: string | null;
  reference?: string | null;
  /** string → string; at most 50 keys of 1–40 letters, digits or _ . : -, values up to 500 characters */
  metadata?: Record<string, string>;
  capture?: boolean;
  card: {
    /** Never stored, logged or returned */
    number: string;
    exp_month: number;
    exp_year: number;
    /** Never stored, logged or returned */
    cvc: string;
  };
};

/** The body of POST /v3/payments/{payment}/capture. */
export type CaptureInput = {
  /** In the currency’s minor unit */
  amount?: number;
};

/** The body of POST /v3/payments/{payment}/refunds. */
export type RefundInput = {
  /** In the currency’s minor unit */
  amount?: number;
  reason?: string;
};

/** Every error body (RFC 9457). */
export type ProblemBody = {
  /** URI naming the problem type */
  type: string;
  title: string;
  status: number;
  detail?: string;
  /** For 422: every invalid parameter or body field of the request (body fields in dot notation, `card.number`; query parameters as sent, `filter[amount][gte]`), each with sentences a client can show, Laravel style */
  errors?: Record<string, Array<string>>;
  /** For 422: the same keys as `errors`, each with a stable machine code per sentence, in the same order (`required`, `invalid_email`, `card_expired`, …) */
  codes?: Record<string, Array<string>>;
};

/** One page of a list: Laravel's envelope. */
export type Page<T> = {
  data: T[];
  links: {
    /** Absolute URL */
    first: string;
    /** Absolute URL */
    last: string;
    /** Absolute URL */
    prev: string | null;
    /** Absolute URL */
    next: string | null;
  };
  meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    links: Array<{
      /** Absolute URL */
      url: string | null;
      label: string;
      active: boolean;
    }>;
    /** Absolute URL */
    path: string;
    per_page: number;
    to: number | null;
    total: number;
  };
};

/** One value, or several (any of). */
export type OneOrMany<T> = T | readonly T[];

/** The filters of GET /v3/accounts. */
export type AccountFilter = {
  status?: OneOrMany<'active' | 'suspended' | 'closed'>;
  currency?: OneOrMany<string>;
  email?: string;
  name?: string;
  created_at?: { gte?: string | Date; gt?: string | Date; lte?: string | Date; lt?: string | Date };
  /** Metadata key → the value, or any of several values (exact strings); several keys must all match. */
  metadata?: Record<string, OneOrMany<string>>;
};

/** The filters of GET /v3/payments and an account's payments. */
export type PaymentFilter = {
  status?: OneOrMany<'pending' | 'authorized' | 'succeeded' | 'failed' | 'canceled' | 'refunded' | 'partially_refunded'>;
  currency?: OneOrMany<string>;
  account_id?: OneOrMany<string>;
  card_brand?: OneOrMany<'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners' | 'unionpay'>;
  card_last4?: OneOrMany<string>;
  reference?: string;
  amount?: { gte?: number; gt?: number; lte?: number; lt?: number };
  created_at?: { gte?: string | Date; gt?: string | Date; lte?: string | Date; lt?: string | Date };
  /** Metadata key → the value, or any of several values (exact strings); several keys must all match. */
  metadata?: Record<string, OneOrMany<string>>;
};

/** The filters of GET /v3/events. */
export type EventFilter = {
  type?: OneOrMany<'account.created' | 'account.updated' | 'account.closed' | 'account.deleted' | 'payment.created' | 'payment.authorized' | 'payment.succeeded' | 'payment.failed' | 'payment.canceled' | 'payment.refunded' | 'payment.partially_refunded'>;
  resource_id?: string;
  created_at?: { gte?: string | Date; gt?: string | Date; lte?: string | Date; lt?: string | Date };
};

/** The fields events sort by. */
export type EventSortField = 'created_at';

/** The fields accounts sort by. */
export type AccountSortField = 'created_at' | 'name';

/** The fields payments sort by. */
export type PaymentSortField = 'created_at' | 'amount';

/** The names `fields[accounts]` takes. */
export type AccountFieldName = 'id' | 'name' | 'email' | 'currency' | 'status' | 'metadata' | 'created_at' | 'updated_at';

/** The names `fields[payments]` takes. */
export type PaymentFieldName = 'id' | 'account_id' | 'amount' | 'currency' | 'status' | 'amount_refunded' | 'refund_reason' | 'method' | 'card' | 'description' | 'reference' | 'failure_code' | 'failure_message' | 'metadata' | 'captured_at' | 'created_at' | 'updated_at';

/** The names `fields[events]` takes. */
export type EventFieldName = 'id' | 'type' | 'created_at' | 'data';

/** What `expand[]` takes on payments. */
export type PaymentExpansion = 'account';
