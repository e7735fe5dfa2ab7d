import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { StatementGuard } from '../db/guardedStatement.ts';
import { templatesOf } from '../db/statementTemplates.ts';
import { LAST_USED_RESOLUTION_MS, noteKeyUse } from './keyLifecycle.ts';
import type { Scope } from './apiKey.ts';

/** What a key was found to be the last time this instance looked it up: a claim, never an answer (see KnownKeys). */
export interface KnownKey {
  id: string;
  tenantId: string;
  scopes: Scope[];
}

/** Keys remembered per instance; past this many the memory starts afresh (a key then costs one lookup again). */
const MAX_KNOWN = 10_000;

/**
 * The keys this instance has found valid, by hash. Never taken as true: a remembered key is
 * answered only by a statement that checks it again (keyGuard), so it saves the lookup's round
 * trip, never the check (decision 0017). Found by hash as the database's index would, so timing
 * tells an attacker nothing (authenticate.ts, sameHash).
 */
export class KnownKeys {
  readonly #keys = new Map<string, KnownKey>();

  get(hash: string): KnownKey | undefined {
    return this.#keys.get(hash);
  }

  remember(hash: string, key: KnownKey): void {
    if (this.#keys.size >= MAX_KNOWN && !this.#keys.has(hash)) this.#keys.clear();
    this.#keys.set(hash, key);
  }

  forget(hash: string): void {
    this.#keys.delete(hash);
  }
}

/**
 * The key check as a guard (db/guardedStatement.ts): one row when the key with this hash is the
 * remembered row, of the remembered tenant, not revoked, not expired at `now` (the instance's
 * clock, as keyState judges it), with the scope; none otherwise. Its `noted` says whether the use
 * is due to be recorded (last_used_at older than the resolution), as noteKeyUse would decide.
 */
export function keyGuardSelect(db: Kysely<Database>, hash: string, key: KnownKey, scope: Scope, now: Date) {
  return templatesOf(db).statement(
    'key guard',
    (slot) =>
      db
        .selectFrom('api_keys')
        .select(sql<boolean>`(last_used_at is null or last_used_at < ${slot('staleBefore')})`.as('noted'))
        .where('key_hash', '=', slot<string>('hash'))
        .where('id', '=', slot<string>('id'))
        .where('tenant_id', '=', slot<string>('tenant'))
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', slot<string>('now'))]))
        // Scopes are stored as `read,write`: a whole item, never a part of one.
        .where(sql<boolean>`(',' || scopes || ',') like ${slot('scopePattern')}`),
    {
      hash,
      id: key.id,
      tenant: key.tenantId,
      now: now.toISOString(),
      staleBefore: new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString(),
      scopePattern: `%,${scope},%`,
    },
  );
}

/**
 * The guard for a request on a remembered key. `check` is the request's own lookup (what every
 * request did before): it throws the exact problem a refused key gets. `settled` runs once, with
 * the outcome, whichever way the key was proven.
 */
export function keyGuard(
  db: Kysely<Database>,
  hash: string,
  key: KnownKey,
  scope: Scope,
  now: Date,
  lookUp: () => Promise<void>,
  settled: () => void,
): StatementGuard {
  return {
    select: { compile: () => keyGuardSelect(db, hash, key, scope, now) },
    held(noted) {
      settled();
      if (noted) noteKeyUse(db, { id: key.id, last_used_at: null }, now);
    },
    async check() {
      settled();
      await lookUp();
    },
  };
}
