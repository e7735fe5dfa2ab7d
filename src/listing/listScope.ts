/** Which table a list reads. */
export type ListTable = 'payments' | 'accounts';

/** Whose rows a list shows: a tenant's, or one account's of it. */
export interface ListScope {
  tenantId: string;
  accountId?: string;
}
