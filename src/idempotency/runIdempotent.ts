import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Db } from '../db/database.ts';
import { inWriteTransaction, type Write } from '../db/writeTransaction.ts';
import { issue, Problem, validationProblem } from '../core/problem.ts';

export interface WriteResult {
  status: number;
  body: unknown;
  location?: string;
}

export interface IdempotentResult extends WriteResult {
  replayed: boolean;
}

export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a claimed key counts as in flight before a crashed attempt may be taken over. */
const IN_FLIGHT_MS = 60_000;
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

type ClaimOutcome = { claimed: true } | { claimed: false; replay: WriteResult };

/** Claims the key for this request, or says what an earlier request with it already answered. */
async function claim(db: Kysely<Database>, tenantId: string, key: string, hash: string, now: number): Promise<ClaimOutcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({
        tenant_id: tenantId,
        key,
        request_hash: hash,
        locked_until: new Date(now + IN_FLIGHT_MS).toISOString(),
        response_status: null,
        response_body: null,
        response_location: null,
        created_at: new Date(now).toISOString(),
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { claimed: true };

    const row = await db.selectFrom('idempotency_keys').selectAll().where('tenant_id', '=', tenantId).where('key', '=', key).executeTakeFirst();
    if (!row) continue; // expired and removed in between: claim again
    if (Date.parse(row.created_at) < now - KEY_RETENTION_MS) {
      await db.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('key', '=', key).where('created_at', '=', row.created_at).execute();
      continue;
    }
    if (row.request_hash !== hash) {
      throw validationProblem(
        { 'Idempotency-Key': [issue('idempotency_key_reused', 'was already used with a different request; use a new key for a new request')] },
        'This Idempotency-Key belongs to another request.',
      );
    }
    if (row.response_status !== null) {
      return {
        claimed: false,
        replay: { status: row.response_status, body: JSON.parse(row.response_body ?? 'null'), location: row.response_location ?? undefined },
      };
    }
    if (row.locked_until !== null && Date.parse(row.locked_until) > now) throw conflictInFlight();
    // The earlier attempt died mid-way (nothing it did was committed): take the key over.
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ locked_until: new Date(now + IN_FLIGHT_MS).toISOString() })
      .where('tenant_id', '=', tenantId)
      .where('key', '=', key)
      .where('locked_until', '=', row.locked_until)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return { claimed: true };
    throw conflictInFlight();
  }
  throw conflictInFlight();
}

function complete(trx: Kysely<Database>, tenantId: string, key: string, result: WriteResult) {
  return trx
    .updateTable('idempotency_keys')
    .set({ locked_until: null, response_status: result.status, response_body: JSON.stringify(result.body), response_location: result.location ?? null })
    .where('tenant_id', '=', tenantId)
    .where('key', '=', key)
    .execute();
}

/**
 * Runs a write at most once per (tenant, key): the write and the stored response commit in
 * one transaction, so a replay never disagrees with the database. A definite answer (success
 * or a 4xx problem) is kept and replayed; a failure on our side releases the key for a retry.
 */
export async function runIdempotent(
  database: Db,
  request: { tenantId: string; key: string | undefined; hash: string },
  work: (write: Write) => Promise<WriteResult>,
): Promise<IdempotentResult> {
  const { tenantId, key, hash } = request;
  if (key === undefined) return { ...(await inWriteTransaction(database, work)), replayed: false };

  const db = database.kysely;
  const outcome = await claim(db, tenantId, key, hash, Date.now());
  if (!outcome.claimed) return { ...outcome.replay, replayed: true };
  try {
    const result = await inWriteTransaction(database, async (write) => {
      const written = await work(write);
      await complete(write.trx, tenantId, key, written);
      return written;
    });
    return { ...result, replayed: false };
  } catch (error) {
    if (error instanceof Problem && error.status < 500 && error.status !== 409 && error.status !== 429) {
      await complete(db, tenantId, key, { status: error.status, body: error.toJSON() });
    } else {
      await db.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('key', '=', key).execute();
    }
    throw error;
  }
}

/** Drops keys past their retention; cheap (indexed by created_at), run now and then. */
export async function purgeExpiredKeys(db: Kysely<Database>, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(now - KEY_RETENTION_MS).toISOString())
    .execute();
}
