import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { forbidden, unauthorized } from '../core/problem.ts';
import { hashApiKey, type Scope } from './apiKey.ts';
import { findKeyByHash } from './tenantQueries.ts';
import { keyState, noteKeyUse } from './keyLifecycle.ts';
import { keyGuard, KnownKeys, type KnownKey } from './knownKeys.ts';
import type { StatementGuard } from '../db/guardedStatement.ts';

export interface Caller {
  tenantId: string;
  scopes: Scope[];
  /** SHA-256 of the key: what per-key state (rate limits) is keyed by, never the key itself. */
  keyHash: string;
  /** How far the primary's WAL had reached after the tenant's last acknowledged write (0: none recorded): a read goes to a replica only past it. */
  writtenUpTo: number;
  /**
   * Set while the key is taken from this instance's memory of it (knownKeys.ts), not yet checked
   * for this request: the statement that reads the list or claims the create carries the check, or
   * it is looked up before anything is answered or written. Cleared once settled either way.
   */
  unproven?: StatementGuard;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; routes without one are public (health, readiness). */
    scope?: Scope;
    /**
     * The route's first statement carries the key's check (db/guardedStatement.ts: a list's page,
     * a create's claim), and it writes nothing before: auth may leave a known key to it.
     */
    keyLeftToStatement?: boolean;
  }
}

/** The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer. */
const BEARER = /^Bearer +([A-Za-z0-9_\-.~+/]{1,200}=*)$/i;

/** The hash of the request's key; a missing or malformed header is refused before any lookup. */
function keyHashOf(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('Send an API key as Authorization: Bearer <key>.');
  const match = BEARER.exec(header);
  if (!match) throw unauthorized('The Authorization header must be Bearer <key>.');
  return hashApiKey(match[1]);
}

/** The key's row, looked up now: the caller it makes, or the problem that refuses it. */
async function lookUpCaller(db: Kysely<Database>, hash: string, withWritePosition: boolean): Promise<{ caller: Caller; key: KnownKey }> {
  // No cache of keys: every request reads the key's row (here, or in the statement that reads its
  // list: knownKeys.ts), so a revocation or an expiry holds from the next request on, on every instance.
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
  const scopes = key.scopes.split(',') as Scope[];
  return {
    caller: { tenantId: key.tenant_id, scopes, keyHash: hash, writtenUpTo: Number(key.written_up_to ?? 0) },
    key: { id: key.id, tenantId: key.tenant_id, scopes },
  };
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
 * Authenticates every route that declares a scope, before its input is validated; with read
 * replicas (`withWritePosition`) it also carries the tenant's last write position. A list route, or
 * a create, on a key found valid before goes on unproven, as its statement re-checks the key
 * (decisions 0017, 0095); not with replicas, where the key must be read on the primary (decision 0011).
 */
export function registerAuthentication(app: FastifyInstance, db: Kysely<Database>, withWritePosition = false): void {
  const known = new KnownKeys();
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    const needed = request.routeOptions.config.scope;
    if (!needed) return;
    const hash = keyHashOf(request);
    const remembered = !withWritePosition && request.routeOptions.config.keyLeftToStatement ? known.get(hash) : undefined;
    if (remembered?.scopes.includes(needed)) {
      const caller: Caller = { tenantId: remembered.tenantId, scopes: remembered.scopes, keyHash: hash, writtenUpTo: 0 };
      const settled = () => (caller.unproven = undefined);
      const lookUp = async () => {
        try {
          const found = await authenticated(hash, needed);
          // Rows never change tenant; were it ever so, nothing read for the remembered one may be answered.
          if (found.tenantId !== caller.tenantId) throw new Error('an API key changed tenant between two requests');
        } catch (error) {
          known.forget(hash);
          throw error;
        }
      };
      caller.unproven = keyGuard(db, hash, remembered, needed, new Date(), lookUp, settled);
      request.caller = caller;
      return;
    }
    request.caller = await authenticated(hash, needed);
  });
  // A response is never sent on an unproven key: the lookup settles it first (a no-op once settled).
  app.addHook('onSend', (request, _reply, payload, done) => {
    const unproven = request.caller?.unproven;
    if (!unproven) return done(null, payload);
    unproven.check().then(() => done(null, payload), done);
  });

  async function authenticated(hash: string, needed: Scope): Promise<Caller> {
    const { caller, key } = await lookUpCaller(db, hash, withWritePosition);
    if (!caller.scopes.includes(needed)) throw forbidden(`This API key lacks the ${needed} scope.`);
    known.remember(hash, key);
    return caller;
  }
}

/**
 * Lets an error be answered on an unproven key without its lookup, when the database was
 * unreachable: the lookup would wait for that database again (a silent host: its whole connect
 * timeout) for the same 503, and a 503 tells an unproven key nothing.
 */
export function waiveUnprovenKey(request: FastifyRequest): void {
  if (request.caller?.unproven) request.caller.unproven = undefined;
}

/**
 * Before an error is answered: settles an unproven key (registerAuthentication) by its lookup,
 * and returns the problem that refuses it, if it is refused; undefined when the key holds (or was
 * proven already) and the error stands.
 */
export async function settleUnprovenKey(request: FastifyRequest): Promise<unknown> {
  const unproven = request.caller?.unproven;
  if (!unproven) return undefined;
  try {
    await unproven.check();
    return undefined;
  } catch (refusal) {
    return refusal;
  }
}
