import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { createApiKey } from './tenantQueries.ts';
import type { Scope } from './apiKey.ts';

/** A key's state at `now`: what `keys list` shows and what a refused request says. */
export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(key: { revoked_at: string | null; expires_at: string | null }, now = Date.now()): KeyState {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && Date.parse(key.expires_at) <= now) return 'expired';
  return 'active';
}

/** The keys of a tenant, newest first: what identifies them, never the key nor its hash. */
export async function listKeys(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom('api_keys')
    .select(['key_prefix', 'scopes', 'created_at', 'last_used_at', 'expires_at', 'revoked_at', 'replaced_by'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The keys that start with `prefix` (as `keys list` shows it), with their tenant's name. */
export async function findKeysByPrefix(db: Kysely<Database>, prefix: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select(['api_keys.id', 'api_keys.tenant_id', 'tenants.name as tenant', 'key_prefix', 'scopes', 'revoked_at', 'expires_at', 'replaced_by'])
    .where('key_prefix', '=', prefix)
    .execute();
}

export async function revokeKey(db: Kysely<Database>, id: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: at.toISOString() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** What a rotation did: made the successor, or found the key already rotated (to `replacedBy`). */
export type Rotation = { rotated: true; key: string; prefix: string } | { rotated: false; replacedBy: string; expiresAt: string | null };

/** Thrown inside the transaction only to roll back the new key; returned as a value outside. */
class AlreadyRotated extends Error {
  readonly replacedBy: string;
  readonly expiresAt: string | null;
  constructor(replacedBy: string, expiresAt: string | null) {
    super('already rotated');
    this.replacedBy = replacedBy;
    this.expiresAt = expiresAt;
  }
}

/**
 * A new key with the old one's tenant and scopes; the old one works until `graceEndsAt`, then is
 * refused as expired, naming its replacement. One transaction, so there is never a moment with
 * neither key. A key already rotated is not rotated again: a second successor would be a live
 * key that `keys list` never names.
 */
export async function rotateKey(
  db: Kysely<Database>,
  old: { id: string; tenant_id: string; scopes: string; expires_at: string | null },
  graceEndsAt: Date,
): Promise<Rotation> {
  try {
    return await db.transaction().execute(async (trx) => {
      const key = await createApiKey(trx, old.tenant_id, old.scopes.split(',') as Scope[]);
      const prefix = key.slice(0, 10);
      const endsAt = old.expires_at && Date.parse(old.expires_at) < graceEndsAt.getTime() ? old.expires_at : graceEndsAt.toISOString();
      const updated = await trx
        .updateTable('api_keys')
        .set({ expires_at: endsAt, replaced_by: prefix })
        .where('id', '=', old.id)
        .where('replaced_by', 'is', null)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        const current = await trx.selectFrom('api_keys').select(['replaced_by', 'expires_at']).where('id', '=', old.id).executeTakeFirstOrThrow();
        throw new AlreadyRotated(current.replaced_by ?? '', current.expires_at);
      }
      return { rotated: true as const, key, prefix };
    });
  } catch (error) {
    if (error instanceof AlreadyRotated) return { rotated: false, replacedBy: error.replacedBy, expiresAt: error.expiresAt };
    throw error;
  }
}

/** `last_used_at` moves at most once per this interval per key: a request never waits on a write for it. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records a use of the key when its stored `last_used_at` is older than the resolution. The
 * condition is in the UPDATE too, so instances racing on the same key write once between them.
 * Not awaited by the request; a failure only loses a timestamp.
 */
export function noteKeyUse(db: Kysely<Database>, key: { id: string; last_used_at: string | null }, now: Date): void {
  if (key.last_used_at && now.getTime() - Date.parse(key.last_used_at) < LAST_USED_RESOLUTION_MS) return;
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
  db.updateTable('api_keys')
    .set({ last_used_at: now.toISOString() })
    .where('id', '=', key.id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute()
    .catch(() => {});
}
