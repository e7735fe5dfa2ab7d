import { ListRequest } from './listRequest.ts';
import { Transport, type CallOptions, type ClientOptions } from './transport.ts';
import type {
  Account,
  AccountListParams,
  CreateAccountInput,
  CreatePaymentInput,
  Event,
  EventListParams,
  Payment,
  PaymentListParams,
  UpdateAccountInput,
} from './types.ts';
import { verifyWebhook, type WebhookHeaders } from './webhookSignature.ts';

type One<T> = { data: T };
const id = (value: string) => encodeURIComponent(value);

/**
 * The Accounts & Payments API v3, typed. Lists are lazy `ListRequest`s; everything else returns
 * the resource. Every non-2xx answer throws an `ApiProblem`.
 */
export class PaymentsClient {
  readonly accounts: ReturnType<typeof accountsOf>;
  readonly payments: ReturnType<typeof paymentsOf>;
  readonly events: ReturnType<typeof eventsOf>;
  /** Checks deliveries your endpoint receives (no request is made). */
  readonly webhooks = {
    /** The event, once `body` (the raw text) and `headers` verify under `secret` (`whsec_…`); else throws WebhookSignatureError. */
    verify: (body: string, headers: WebhookHeaders, secret: string, toleranceSeconds?: number): Event =>
      verifyWebhook<Event>(body, headers, secret, toleranceSeconds),
  };

  constructor(options: ClientOptions) {
    const transport = new Transport(options);
    this.accounts = accountsOf(transport);
    this.payments = paymentsOf(transport);
    this.events = eventsOf(transport);
  }
}

async function data<T>(promise: Promise<{ body: One<T> }>): Promise<T> {
  return (await promise).body.data;
}

function accountsOf(http: Transport) {
  return {
    list: (params: AccountListParams = {}) => new ListRequest<Account>(http, '/v3/accounts', params),
    get: (account: string) => data<Account>(http.request('GET', `/v3/accounts/${id(account)}`)),
    create: (input: CreateAccountInput, options?: CallOptions) => data<Account>(http.request('POST', '/v3/accounts', input, options)),
    update: (account: string, changes: UpdateAccountInput) => data<Account>(http.request('PATCH', `/v3/accounts/${id(account)}`, changes)),
    delete: async (account: string): Promise<void> => {
      await http.request('DELETE', `/v3/accounts/${id(account)}`);
    },
    /** One account's payments (404 problem if the account is not yours). */
    payments: (account: string, params: PaymentListParams = {}) => new ListRequest<Payment>(http, `/v3/accounts/${id(account)}/payments`, params),
  };
}

function paymentsOf(http: Transport) {
  return {
    list: (params: PaymentListParams = {}) => new ListRequest<Payment>(http, '/v3/payments', params),
    get: (payment: string) => data<Payment>(http.request('GET', `/v3/payments/${id(payment)}`)),
    create: (input: CreatePaymentInput, options?: CallOptions) => data<Payment>(http.request('POST', '/v3/payments', input, options)),
    capture: (payment: string, input: { amount?: number } = {}, options?: CallOptions) =>
      data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/capture`, input, options)),
    cancel: (payment: string, options?: CallOptions) => data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/cancel`, undefined, options)),
    refund: (payment: string, input: { amount?: number; reason?: string } = {}, options?: CallOptions) =>
      data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/refunds`, input, options)),
  };
}

function eventsOf(http: Transport) {
  return {
    /** Oldest first: walk it to catch up on what happened (filter by type, resource_id, created_at). */
    list: (params: EventListParams = {}) => new ListRequest<Event>(http, '/v3/events', params),
    get: (event: string) => data<Event>(http.request('GET', `/v3/events/${id(event)}`)),
  };
}
