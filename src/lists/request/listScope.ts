/** Which table a list reads. */
export type ListTable = 'payments' | 'accounts' | 'events' | 'webhook_endpoints' | 'webhook_deliveries';

/** Whose rows a list shows: a tenant's, or one account's of it. */
export interface ListScope {
  tenantId: string;
  accountId?: string;
  /** One webhook endpoint's deliveries. */
  endpointId?: string;
}
