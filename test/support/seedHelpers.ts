import type { Db } from '../../src/db/database.ts';
import { seedTenant } from '../../src/seed/seedTenant.ts';

/** Seeds a tenant through the same code as the CLI's seed command. */
export function seed(db: Db, tenant: string, accounts: number, payments: number, seedText = 'test') {
  return seedTenant(db, {
    tenant,
    accounts,
    payments,
    seed: seedText,
    until: new Date('2026-11-01T00:00:00Z'),
    fingerprintSecret: 'test-secret',
  });
}
