import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { tryTransactionLockAndInsert } from '../db/transactionLock.ts';
import { claimRow, completeKey, keyLockName, type KeyedRequest, type WriteResult } from '../idempotency/runIdempotent.ts';
import { toPaymentResource } from './paymentResource.ts';
import { newPaymentRow, recordPaymentCreated, type NewPayment } from './paymentWrites.ts';

/** Thrown to roll an attempt back when its conditions do not hold: it wrote nothing, and the general way answers. */
const NOT_AT_ONCE = Symbol('not at once');

/**
 * PostgreSQL: a create under a new Idempotency-Key in two statements of one transaction instead
 * of five (decision 0094). The first takes the key's lock and claims it only if the account is the
 * caller's own and open, locking it FOR SHARE as the general way does; after that nothing in the
 * write can refuse, so no savepoint is needed. The second inserts the payment, its metadata
 * entries, its list change, its events and the key's answer, as data-modifying CTEs of the
 * events' statement (which also reads the endpoints for their deliveries). When the first claims
 * nothing (the key is known, another request holds it, the account is not open) the attempt is
 * rolled back and answers undefined: runIdempotent then decides as always (replay, 409, 422).
 * Same rows, same answer, same events as the general way (`insertPayment`).
 */
export async function createPaymentAtOnce(
  db: Db,
  request: KeyedRequest,
  accountId: string,
  newPayment: () => Promise<NewPayment>,
): Promise<WriteResult | undefined> {
  const { tenantId, key, hash } = request;
  if (db.dialect !== 'postgres' || key === undefined) return undefined;
  try {
    return await inWriteTransaction(db, async (write) => {
      const { trx } = write;
      const accountOpen = sql`exists (${trx
        .selectFrom('accounts')
        .select(sql.lit(1).as('open'))
        .where('tenant_id', '=', tenantId)
        .where('id', '=', accountId)
        .where('status', '!=', 'closed')
        .forShare()})`;
      const { inserted } = await tryTransactionLockAndInsert(
        trx,
        'postgres',
        keyLockName(tenantId, key),
        'idempotency_keys',
        claimRow(tenantId, key, hash, Date.now()),
        ['tenant_id', 'key'],
        accountOpen,
      );
      if (!inserted) throw NOT_AT_ONCE;
      // The processor is asked only now, once the key is this request's: a replay never asks it.
      const payment = await newPayment();
      const row = newPaymentRow(tenantId, payment);
      const result: WriteResult = { status: 201, body: { data: toPaymentResource(row) }, location: `/v3/payments/${row.id}` };
      await write.hold(trx.insertInto('payments').values(row));
      await write.hold(completeKey(trx, tenantId, key, result));
      await recordPaymentCreated(write, tenantId, row, payment.input.metadata);
      return result;
    });
  } catch (error) {
    if (error === NOT_AT_ONCE) return undefined;
    throw error;
  }
}
