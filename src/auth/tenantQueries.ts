import type { Kysely } from 'kysely';
import type { ApiKeyTable, Database } from '../db/schema.ts';
import { flagged } from '../db/driverFlags.ts';
import { StatementTemplates } from '../db/statementTemplates.ts';
import { newId } from '../core/resourceId.ts';
import { generateApiKey, type Scope } from './apiKey.ts';

export async function findTenantByName(db: Kysely<Database>, name: string) {
  return db.selectFrom('tenants').selectAll().where('name', '=', name).executeTakeFirst();
}

/** A tenant to name in a hint: `preferred` when it exists, else the first by name; undefined when there is none. */
export async function someTenantName(db: Kysely<Database>, preferred: string): Promise<string | undefined> {
  if (await findTenantByName(db, preferred)) return preferred;
  return (await db.selectFrom('tenants').select('name').orderBy('name').limit(1).executeTakeFirst())?.name;
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
export async function createApiKey(db: Kysely<Database>, tenantId: string, scopes: Scope[], expiresAt: Date | null = null): Promise<string> {
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
      expires_at: expiresAt?.toISOString() ?? null,
      last_used_at: null,
      replaced_by: null,
    })
    .execute();
  return key;
}

/** Per database handle: the compiled SQL is that database's own. */
const statements = new WeakMap<Kysely<Database>, StatementTemplates>();

type KeyRow = Pick<ApiKeyTable, 'id' | 'tenant_id' | 'scopes' | 'key_hash' | 'revoked_at' | 'expires_at' | 'last_used_at' | 'replaced_by'> & {
  /** How far the primary's WAL had reached after the tenant's last acknowledged write (null: none recorded; absent: not asked); see db/readReplicas.ts. */
  written_up_to?: number | string | null;
};

/**
 * The key with this hash, revoked and expired ones too: the caller says which it is. Nearly every
 * request runs it, so it is compiled once per handle and prepared by name on PostgreSQL. With read
 * replicas it also reads the tenant's last write position on the primary, at no round trip of its
 * own (decision 0011). Bounded to one row by unique index, so on SQLite it runs inline.
 */
export async function findKeyByHash(db: Kysely<Database>, hash: string, withWritePosition = false) {
  let templates = statements.get(db);
  if (!templates) statements.set(db, (templates = new StatementTemplates()));
  const compiled = withWritePosition
    ? templates.statement(
        'key by hash, with the write position',
        (slot) =>
          flagged(
            db
              .selectFrom('api_keys')
              .select(KEY_COLUMNS)
              .select((eb) =>
                eb
                  .selectFrom('tenant_write_positions')
                  .select('tenant_write_positions.position')
                  .whereRef('tenant_write_positions.tenant_id', '=', 'api_keys.tenant_id')
                  .as('written_up_to'),
              )
              .where('key_hash', '=', slot<string>('hash')),
            { prepared: true, bounded: true },
          ),
        { hash },
      )
    : templates.statement(
        'key by hash',
        (slot) => flagged(db.selectFrom('api_keys').select(KEY_COLUMNS).where('key_hash', '=', slot<string>('hash')), { prepared: true, bounded: true }),
        { hash },
      );
  const { rows } = await db.executeQuery<KeyRow>(compiled);
  return rows[0];
}

const KEY_COLUMNS = ['id', 'tenant_id', 'scopes', 'key_hash', 'revoked_at', 'expires_at', 'last_used_at', 'replaced_by'] as const;

export async function listTenants(db: Kysely<Database>) {
  return db
    .selectFrom('tenants')
    .leftJoin('api_keys', 'api_keys.tenant_id', 'tenants.id')
    .select((eb) => ['tenants.id', 'tenants.name', 'tenants.created_at', eb.fn.count<number>('api_keys.id').as('keys')])
    .groupBy(['tenants.id', 'tenants.name', 'tenants.created_at'])
    .orderBy('tenants.name')
    .execute();
}
