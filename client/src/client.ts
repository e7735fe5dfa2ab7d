import { ListRequest } from './listRequest.ts';
import { exportRecords } from './exportRecords.ts';
import { Transport, type CallOptions, type ClientOptions } from './transport.ts';
import type {
  Account,
  AccountExportParams,
  AccountListParams,
  CreateAccountInput,
  CreatePaymentInput,
  Payment,
  PaymentExportParams,
  PaymentListParams,
  UpdateAccountInput,
} from './types.ts';

type One<T> = { data: T };
const id = (value: string) => encodeURIComponent(value);

/**
 * The Accounts & Payments API v3, typed. Lists are lazy `ListRequest`s; everything else returns
 * the resource. Every non-2xx answer throws an `ApiProblem`.
 */
export class PaymentsClient {
  readonly accounts: ReturnType<typeof accountsOf>;
  readonly payments: ReturnType<typeof paymentsOf>;

  constructor(options: ClientOptions) {
    const transport = new Transport(options);
    this.accounts = accountsOf(transport);
    this.payments = paymentsOf(transport);
  }
}

async function data<T>(promise: Promise<{ body: One<T> }>): Promise<T> {
  return (await promise).body.data;
}

function accountsOf(http: Transport) {
  return {
    list: (params: AccountListParams = {}) => new ListRequest<Account>(http, '/v3/accounts', params),
    /** Every account the list would show, in one request from one snapshot: `for await (const a of client.accounts.export())`. */
    export: (params: AccountExportParams = {}) => exportRecords<Account>(http, '/v3/accounts/export', params),
    get: (account: string) => data<Account>(http.request('GET', `/v3/accounts/${id(account)}`)),
    create: (input: CreateAccountInput, options?: CallOptions) => data<Account>(http.request('POST', '/v3/accounts', input, options)),
    update: (account: string, changes: UpdateAccountInput) => data<Account>(http.request('PATCH', `/v3/accounts/${id(account)}`, changes)),
    delete: async (account: string): Promise<void> => {
      await http.request('DELETE', `/v3/accounts/${id(account)}`);
    },
    /** One account's payments (404 problem if the account is not yours). */
    payments: (account: string, params: PaymentListParams = {}) => new ListRequest<Payment>(http, `/v3/accounts/${id(account)}/payments`, params),
    /** Every payment of one account, as `payments.export` does. */
    exportPayments: (account: string, params: PaymentExportParams = {}) => exportRecords<Payment>(http, `/v3/accounts/${id(account)}/payments/export`, params),
  };
}

function paymentsOf(http: Transport) {
  return {
    list: (params: PaymentListParams = {}) => new ListRequest<Payment>(http, '/v3/payments', params),
    /** Every payment the list would show, in one request from one snapshot: `for await (const p of client.payments.export({ filter }))`. */
    export: (params: PaymentExportParams = {}) => exportRecords<Payment>(http, '/v3/payments/export', params),
    get: (payment: string) => data<Payment>(http.request('GET', `/v3/payments/${id(payment)}`)),
    create: (input: CreatePaymentInput, options?: CallOptions) => data<Payment>(http.request('POST', '/v3/payments', input, options)),
    capture: (payment: string, input: { amount?: number } = {}, options?: CallOptions) =>
      data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/capture`, input, options)),
    cancel: (payment: string, options?: CallOptions) => data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/cancel`, undefined, options)),
    refund: (payment: string, input: { amount?: number; reason?: string } = {}, options?: CallOptions) =>
      data<Payment>(http.request('POST', `/v3/payments/${id(payment)}/refunds`, input, options)),
  };
}
