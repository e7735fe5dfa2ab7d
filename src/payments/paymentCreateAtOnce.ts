import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { StatementGuard } from '../db/guardedStatement.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { claimRow, completeKey, keyLockName, type KeyedRequest, type WriteResult } from '../idempotency/runIdempotent.ts';
import { createdPayment, newPaymentRow, openAccountShared, recordPaymentCreated, type NewPayment } from './paymentWrites.ts';

/** Thrown to roll an attempt back when its conditions do not hold: it wrote nothing, and the general way answers. */
const NOT_AT_ONCE = Symbol('not at once');

/**
 * A create under a new Idempotency-Key: the key claimed only with the account's check (after that
 * nothing can refuse: no savepoint), the rest held to go with the events' statement, the answer
 * stored with it (decision 0094). A key not yet proven (`unproven`) is checked by the claim itself
 * (decision 0095). When the claim takes nothing it rolls back, having written nothing, and answers
 * undefined: the key is then looked up and runIdempotent decides as always (replay, 409, 422).
 */
export async function createPaymentAtOnce(
  db: Db,
  request: KeyedRequest,
  accountId: string,
  newPayment: () => Promise<NewPayment>,
  unproven?: StatementGuard,
): Promise<WriteResult | undefined> {
  const { tenantId, key, hash } = request;
  if (key === undefined) return undefined;
  try {
    return await inWriteTransaction(db, async (write) => {
      const accountOpen = sql`exists ${openAccountShared(write, tenantId, accountId).select(sql.lit(1).as('open'))}`;
      const { inserted } = await write.tryLockAndInsert(
        keyLockName(tenantId, key),
        'idempotency_keys',
        claimRow(tenantId, key, hash, Date.now()),
        ['tenant_id', 'key'],
        accountOpen,
        unproven,
      );
      if (!inserted) throw NOT_AT_ONCE;
      // The processor is asked only now, once the key is this request's: a replay never asks it.
      const payment = await newPayment();
      const row = newPaymentRow(tenantId, payment);
      const result = createdPayment(row);
      await write.hold(write.trx.insertInto('payments').values(row));
      await write.hold(completeKey(write.trx, tenantId, key, result));
      await recordPaymentCreated(write, tenantId, row, payment.input.metadata);
      return result;
    });
  } catch (error) {
    if (error === NOT_AT_ONCE) return undefined;
    throw error;
  }
}
