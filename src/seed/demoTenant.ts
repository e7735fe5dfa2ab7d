import type { Config } from '../config/loadConfig.ts';
import type { Db } from '../db/database.ts';
import { createApiKey } from '../auth/tenantQueries.ts';
import { seedTenant } from './seedTenant.ts';

export const DEMO = { tenant: 'demo', accounts: 40, payments: 3000 } as const;

/**
 * The zero-setup first run: an empty embedded database gets a demo tenant, realistic data
 * and a key. Never on PostgreSQL, never once anything exists.
 */
export async function createDemoTenantIfEmpty(db: Db, config: Config) {
  const any = await db.kysely.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
  if (any) return undefined;
  const { tenantId } = await seedTenant(db, {
    tenant: DEMO.tenant,
    accounts: DEMO.accounts,
    payments: DEMO.payments,
    seed: 'demo',
    until: new Date(),
    fingerprintSecret: config.cardFingerprintSecret,
  });
  const key = await createApiKey(db.kysely, tenantId, ['read', 'write']);
  return { key, accounts: DEMO.accounts, payments: DEMO.payments };
}
