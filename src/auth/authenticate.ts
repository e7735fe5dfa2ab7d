import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { forbidden, unauthorized } from '../core/problem.ts';
import { hashApiKey, type Scope } from './apiKey.ts';
import { findKeyByHash } from './tenantQueries.ts';
import { keyState, noteKeyUse } from './keyLifecycle.ts';

export interface Caller {
  tenantId: string;
  scopes: Scope[];
  /** SHA-256 of the key: what per-key state (rate limits) is keyed by, never the key itself. */
  keyHash: string;
  /** How far the primary's WAL had reached after the tenant's last acknowledged write (0: none recorded): a read goes to a replica only past it. */
  writtenUpTo: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; routes without one are public (health, readiness). */
    scope?: Scope;
  }
}

/** The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer. */
const BEARER = /^Bearer +([A-Za-z0-9_\-.~+/]{1,200}=*)$/i;

async function callerOf(db: Kysely<Database>, request: FastifyRequest, withWritePosition: boolean): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('Send an API key as Authorization: Bearer <key>.');
  const match = BEARER.exec(header);
  if (!match) throw unauthorized('The Authorization header must be Bearer <key>.');
  const hash = hashApiKey(match[1]);
  // No cache of keys: every request reads the key's row, so a revocation or an expiry holds
  // from the next request on, on every instance.
  const key = await findKeyByHash(db, hash, withWritePosition);
  if (!key || !sameHash(key.key_hash, hash)) throw unauthorized('The API key is not valid.');
  const now = new Date();
  const state = keyState(key, now.getTime());
  if (state === 'revoked') throw unauthorized(`The API key was revoked at ${key.revoked_at}.`);
  if (state === 'expired') {
    // Not the successor's prefix: responses blank anything shaped like a key (scrubSecrets.ts).
    const replaced = key.replaced_by ? ' It was rotated: use the new key (keys list names it).' : '';
    throw unauthorized(`The API key expired at ${key.expires_at}.${replaced}`);
  }
  noteKeyUse(db, key, now);
  return { tenantId: key.tenant_id, scopes: key.scopes.split(',') as Scope[], keyHash: hash, writtenUpTo: Number(key.written_up_to ?? 0) };
}

/**
 * The database finds the row by the hash, and its index compares byte by byte with an early
 * exit; that leaks only how much of a SHA-256 matched, which an attacker cannot steer towards a
 * key (they would need preimages). The final word is this comparison, in constant time, of the
 * stored and the computed hash, so no step that decides "valid key" takes a time that depends
 * on how close a guess was — whatever collation or index the database uses.
 */
function sameHash(stored: string, computed: string): boolean {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(computed, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Authenticates every route that declares a scope, before its input is even validated. With read
 * replicas (`withWritePosition`), the caller carries the tenant's last write position too.
 */
export function registerAuthentication(app: FastifyInstance, db: Kysely<Database>, withWritePosition = false): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    const needed = request.routeOptions.config.scope;
    if (!needed) return;
    const caller = await callerOf(db, request, withWritePosition);
    if (!caller.scopes.includes(needed)) throw forbidden(`This API key lacks the ${needed} scope.`);
    request.caller = caller;
  });
}
