import type { ListSpec } from '../lists/index.ts';

export const ACCOUNT_STATUSES = ['active', 'suspended', 'closed'] as const;

export const accountListSpec = {
  name: 'accounts',
  filters: {
    status: { kind: 'enum', values: ACCOUNT_STATUSES, column: 'status' },
    currency: { kind: 'code', pattern: '[A-Z]{3}', hint: 'ISO 4217 codes such as USD,EUR', column: 'currency' },
    email: { kind: 'exactInsensitive', column: 'email_folded' },
    name: { kind: 'contains', column: 'name_folded' },
    created_at: { kind: 'timeRange', column: 'created_at' },
    metadata: { kind: 'metadata', column: 'account_metadata' },
  },
  sorts: { created_at: 'created_at', name: 'name' },
  defaultSort: 'created_at',
} as const satisfies ListSpec;
