import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { newId } from '../core/resourceId.ts';
import { generateApiKey, type Scope } from './apiKey.ts';

export async function findTenantByName(db: Kysely<Database>, name: string) {
  return db.selectFrom('tenants').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function createTenant(db: Kysely<Database>, name: string) {
  const tenant = { id: newId('ten'), name, created_at: new Date().toISOString() };
  await db.insertInto('tenants').values(tenant).execute();
  return tenant;
}

/** The tenant of that name, created if missing; two callers creating it at once get the same one. */
export async function findOrCreateTenant(db: Kysely<Database>, name: string) {
  const found = await findTenantByName(db, name);
  if (found) return found;
  await db
    .insertInto('tenants')
    .values({ id: newId('ten'), name, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const tenant = await findTenantByName(db, name);
  if (!tenant) throw new Error(`tenant ${name} vanished as it was created`);
  return tenant;
}

/** Stores the hash of a new key and returns the key itself: the only time it is ever visible. */
export async function createApiKey(db: Kysely<Database>, tenantId: string, scopes: Scope[]): Promise<string> {
  const { key, hash, displayPrefix } = generateApiKey();
  await db
    .insertInto('api_keys')
    .values({
      id: newId('key'),
      tenant_id: tenantId,
      key_hash: hash,
      key_prefix: displayPrefix,
      scopes: scopes.join(','),
      created_at: new Date().toISOString(),
      revoked_at: null,
    })
    .execute();
  return key;
}

export async function findActiveKeyByHash(db: Kysely<Database>, hash: string) {
  return db.selectFrom('api_keys').select(['tenant_id', 'scopes', 'key_hash']).where('key_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
}
