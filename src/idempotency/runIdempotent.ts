import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Db } from '../db/database.ts';
import { everyTenantId } from '../db/everyTenantId.ts';
import { inWriteTransaction, type Write } from '../db/writeTransaction.ts';
import { issue, Problem, validationProblem } from '../core/problem.ts';

export interface WriteResult {
  status: number;
  body: unknown;
  location?: string;
}

/** Whose request, under which Idempotency-Key (if any), and its fingerprint (requestFingerprint.ts). */
export interface KeyedRequest {
  tenantId: string;
  key: string | undefined;
  hash: string;
}

export interface IdempotentResult extends WriteResult {
  replayed: boolean;
}

export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export function checkIdempotencyKey(key: string | string[] | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY_SHAPE.test(key)) {
    throw validationProblem({ 'Idempotency-Key': [issue('invalid_idempotency_key', 'must be 1 to 255 printable ASCII characters, sent once')] });
  }
  return key;
}

function conflictInFlight(): Problem {
  return new Problem('idempotency-in-flight', {
    detail: 'Retry after it finishes to receive its response.',
    headers: { 'retry-after': '1' },
  });
}

/**
 * The refusals a retry would get again: kept and replayed. 409 (a request still running, a
 * conflict with the current state) and 429 say "try again later", and 5xx is our failure: none
 * is kept, so the key stays free for the retry. Refusals before the write begins (the body's
 * schema, authentication, the key's own form) never get here: they are not kept either.
 */
function isKeptRefusal(error: unknown): error is Problem {
  return error instanceof Problem && error.status >= 400 && error.status < 500 && error.status !== 409 && error.status !== 429;
}

/** The lock a request holds on its key while it runs (on PostgreSQL an advisory lock: transactionLock.ts). */
export function keyLockName(tenantId: string, key: string): string {
  return `idempotency:${tenantId.length}:${tenantId}${key}`;
}

/** A key's row as its claim inserts it: no answer yet. */
export function claimRow(tenantId: string, key: string, hash: string, now: number) {
  return { tenant_id: tenantId, key, request_hash: hash, created_at: new Date(now).toISOString() };
}

type ClaimOutcome = { claimed: true } | { claimed: false; replay: WriteResult };

/**
 * Claims the key inside the write's own transaction, or says what an earlier request already answered.
 * The claim commits only with the write, so a request that fails or dies leaves nothing behind and a
 * retry runs as soon as its transaction is gone (transactionLock.ts). A request still running holds
 * the key's lock: a duplicate gets a 409 (on SQLite it waits and gets the replay).
 */
async function claim(write: Write, tenantId: string, key: string, hash: string, now: number): Promise<ClaimOutcome> {
  const row = claimRow(tenantId, key, hash, now);
  // Named so that no tenant and key spell another's (the tenant's length first). A new key (the
  // usual case) is locked and claimed in one statement (one round trip on PostgreSQL); claiming
  // again takes the lock this transaction already holds.
  const lockAndClaim = () => write.tryLockAndInsert(keyLockName(tenantId, key), 'idempotency_keys', row, ['tenant_id', 'key']);
  const { locked, inserted } = await lockAndClaim();
  if (!locked) throw conflictInFlight();
  if (inserted) return { claimed: true };
  const { trx } = write;
  const stored = await trx.selectFrom('idempotency_keys').selectAll().where('tenant_id', '=', tenantId).where('key', '=', key).executeTakeFirst();
  // Gone in between, or past its retention (not purged yet): a new key.
  if (!stored || Date.parse(stored.created_at) < now - KEY_RETENTION_MS) {
    if (stored) await trx.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('key', '=', key).execute();
    if ((await lockAndClaim()).inserted) return { claimed: true };
    throw conflictInFlight(); // inserted by an instance of an earlier version, which takes no lock
  }
  if (stored.request_hash !== hash) {
    throw validationProblem(
      { 'Idempotency-Key': [issue('idempotency_key_reused', 'was already used with a different request; use a new key for a new request')] },
      'This Idempotency-Key belongs to another request.',
    );
  }
  if (stored.response_status !== null) {
    return {
      claimed: false,
      replay: { status: stored.response_status, body: JSON.parse(stored.response_body ?? 'null'), location: stored.response_location ?? undefined },
    };
  }
  // A claim committed on its own by an earlier version of this code: in flight until locked_until.
  if (stored.locked_until !== null && Date.parse(stored.locked_until) > now) throw conflictInFlight();
  return { claimed: true };
}

/** Stores a claimed key's answer (a statement to run or to hold). */
export function completeKey(trx: Transaction<Database>, tenantId: string, key: string, result: WriteResult) {
  return trx
    .updateTable('idempotency_keys')
    .set({ locked_until: null, response_status: result.status, response_body: JSON.stringify(result.body), response_location: result.location ?? null })
    .where('tenant_id', '=', tenantId)
    .where('key', '=', key);
}

/**
 * Runs `work`; a kept refusal it throws is undone (back to a savepoint: on PostgreSQL a failed
 * statement spoils the rest of the transaction) and returned as its answer to store.
 */
async function workOrKeptRefusal(write: Write, work: (write: Write) => Promise<WriteResult>): Promise<{ result: WriteResult; refusal?: Problem }> {
  await write.sendHeld();
  await sql`savepoint idempotent_work`.execute(write.trx);
  try {
    return { result: await work(write) };
  } catch (error) {
    if (!isKeptRefusal(error)) throw error;
    // What the work held was never sent: it goes back with the rest.
    write.dropHeld();
    await sql`rollback to savepoint idempotent_work`.execute(write.trx);
    return { result: { status: error.status, body: error.toJSON() }, refusal: error };
  }
}

/**
 * Runs a write at most once per (tenant, key): the claim, the write and the stored answer
 * commit in one transaction, so a replay never disagrees with the database and a write that
 * did not complete leaves the key free. A definite answer (success or a kept refusal) is
 * replayed; anything else (a 409, 429 or 5xx) is not kept.
 */
export async function runIdempotent(database: Db, request: KeyedRequest, work: (write: Write) => Promise<WriteResult>): Promise<IdempotentResult> {
  const { tenantId, key, hash } = request;
  if (key === undefined) return { ...(await inWriteTransaction(database, work)), replayed: false };

  const answer = await inWriteTransaction(database, async (write) => {
    const outcome = await claim(write, tenantId, key, hash, Date.now());
    if (!outcome.claimed) return { result: outcome.replay, replayed: true };
    const { result, refusal } = await workOrKeptRefusal(write, work);
    await completeKey(write.trx, tenantId, key, result).execute();
    return { result, refusal, replayed: false };
  });
  // The refusal is kept; its first answer is the problem itself, with its headers.
  if (answer.refusal) throw answer.refusal;
  return { ...answer.result, replayed: answer.replayed };
}

/** Drops keys past their retention, tenant by tenant (each statement names one; index idempotency_keys_tenant_created); run now and then. */
export async function purgeExpiredKeys(db: Kysely<Database>, now = Date.now()): Promise<void> {
  const before = new Date(now - KEY_RETENTION_MS).toISOString();
  for await (const tenantId of everyTenantId(db)) {
    await db.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('created_at', '<', before).execute();
  }
}
