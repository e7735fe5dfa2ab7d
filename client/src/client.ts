import { ListRequest, listQueryString } from './listRequest.ts';
import { exportRecords } from './exportRecords.ts';
import { Transport, type CallOptions, type ClientOptions } from './transport.ts';
import type {
  Account,
  AccountAs,
  AccountReadParams,
  EventAs,
  EventReadParams,
  PaymentAs,
  PaymentReadParams,
  AccountExportParams,
  AccountListParams,
  CaptureInput,
  CreateAccountInput,
  CreatePaymentInput,
  Event,
  EventListParams,
  Payment,
  PaymentExportParams,
  PaymentListParams,
  RefundInput,
  UpdateAccountInput,
} from './types.ts';
import { verifyWebhook, type WebhookHeaders } from './webhookSignature.ts';

type One<T> = { data: T };
const id = (value: string) => encodeURIComponent(value);

/**
 * The Accounts & Payments API v3, typed. Lists are lazy `ListRequest`s; everything else returns
 * the resource. Every non-2xx answer throws an `ApiProblem`. Every method takes `CallOptions`
 * last: a time limit (`timeoutMs`), an `AbortSignal`, and for POSTs an Idempotency-Key.
 */
export class PaymentsClient {
  readonly accounts: ReturnType<typeof accountsOf>;
  readonly payments: ReturnType<typeof paymentsOf>;
  readonly events: ReturnType<typeof eventsOf>;
  /** Checks deliveries your endpoint receives (no request is made). */
  readonly webhooks = {
    /** The event, once `body` (the raw text) and `headers` verify under `secret` (`whsec_…`); else throws WebhookSignatureError. */
    verify: (body: string, headers: WebhookHeaders, secret: string, toleranceSeconds?: number): Promise<Event> =>
      verifyWebhook<Event>(body, headers, secret, toleranceSeconds),
  };

  constructor(options: ClientOptions) {
    const transport = new Transport(options);
    this.accounts = accountsOf(transport);
    this.payments = paymentsOf(transport);
    this.events = eventsOf(transport);
  }
}

/** `?fields[…]=…&expand[]=…` of a single read, from the options that also carry the call's own. */
function readQuery(options: (CallOptions & { fields?: object; expand?: readonly string[] }) | undefined): string {
  return listQueryString({ fields: options?.fields, expand: options?.expand });
}

async function data<T>(promise: Promise<{ body: One<T> }>): Promise<T> {
  return (await promise).body.data;
}

function accountsOf(http: Transport) {
  return {
    /** `fields: { accounts: [...] }` narrows each item's type to those fields. */
    list: <const P extends AccountListParams = AccountListParams>(params: P = {} as P, options?: CallOptions) =>
      new ListRequest<AccountAs<P>>(http, '/v3/accounts', params, options),
    /** Every account the list would show, in one request from one snapshot: `for await (const a of client.accounts.export())`. */
    export: (params: AccountExportParams = {}) => exportRecords<Account>(http, '/v3/accounts/export', params),
    get: <const P extends AccountReadParams = AccountReadParams>(account: string, options?: CallOptions & P) =>
      data<AccountAs<P>>(http.request('GET', `/v3/accounts/${id(account)}${readQuery(options)}`, undefined, options)),
    create: (input: CreateAccountInput, options?: CallOptions) => data<Account>(http.request('POST', '/v3/accounts', input, options)),
    update: (account: string, changes: UpdateAccountInput, options?: CallOptions) =>
      data<Account>(http.request('PATCH', `/v3/accounts/${id(account)}`, changes, options)),
    delete: async (account: string, options?: CallOptions): Promise<void> => {
      await http.request('DELETE', `/v3/accounts/${id(account)}`, undefined, options);
    },
    /** One account's payments (404 problem if the account is not yours). */
    payments: <const P extends PaymentListParams = PaymentListParams>(account: string, params: P = {} as P, options?: CallOptions) =>
      new ListRequest<PaymentAs<P>>(http, `/v3/accounts/${id(account)}/payments`, params, options),
    /** Every payment of one account, as `payments.export` does. */
    exportPayments: (account: string, params: PaymentExportParams = {}) => exportRecords<Payment>(http, `/v3/accounts/${id(account)}/payments/export`, params),
  };
}

function paymentsOf(http: Transport) {
  return {
    /** `fields: { payments: [...] }` narrows each item's type; `expand: ['account']` adds `account` (trimmed by `fields.accounts`). */
    list: <const P extends PaymentListParams = PaymentListParams>(params: P = {} as P, options?: CallOptions) =>
      new ListRequest<PaymentAs<P>>(http, '/v3/payments', params, options),
    /** Every payment the list would show, in one request from one snapshot: `for await (const p of client.payments.export({ filter }))`. */
    export: (params: PaymentExportParams = {}) => exportRecords<Payment>(http, '/v3/payments/export', params),
    get: <const P extends PaymentReadParams = PaymentReadParams>(payment: string, options?: CallOptions & P) =>
      data<PaymentAs<P>>(http.request('GET', `/v3/payments/${id(payment)}${readQuery(options)}`, undefined, options)),
    create: (input: CreatePaymentInput, options?: CallOptions) => data<Payment>(http.request('POST', '/v3/payments', input, options)),
    capture: (payment: string, input: CaptureInput = {}, options?: CallOptions) =>
      data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/capture`, input, options)),
    cancel: (payment: string, options?: CallOptions) => data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/cancel`, undefined, options)),
    refund: (payment: string, input: RefundInput = {}, options?: CallOptions) =>
      data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/refunds`, input, options)),
  };
}

function eventsOf(http: Transport) {
  return {
    /** Oldest first: walk it to catch up on what happened (filter by type, resource_id, created_at). */
    list: <const P extends EventListParams = EventListParams>(params: P = {} as P) => new ListRequest<EventAs<P>>(http, '/v3/events', params),
    get: <const P extends EventReadParams = EventReadParams>(event: string, options?: P) =>
      data<EventAs<P>>(http.request('GET', `/v3/events/${id(event)}${readQuery(options)}`)),
  };
}
