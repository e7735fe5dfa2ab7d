import type { Transaction } from 'kysely';
import { pickShard } from './counterShard.ts';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';
import { tryTransactionLock } from './transactionLock.ts';

/**
 * What a write runs in: its transaction, and the counter shard its count deltas go to, chosen by
 * the database layer (counterShard.ts). Rows it reads to change are locked with Kysely's
 * `forUpdate()` on either database (nodeSqliteDialect.ts). So a write never asks which
 * database it is on.
 */
export interface Write {
  trx: Transaction<Database>;
  shard: number;
  /** A lock on `name` until this transaction ends, or false when another holds it (transactionLock.ts). */
  tryLock(name: string): Promise<boolean>;
}

/** Runs `work` in one transaction of `db`: committed when it resolves, rolled back when it throws. */
export function inWriteTransaction<T>(db: Db, work: (write: Write) => Promise<T>): Promise<T> {
  return db.kysely.transaction().execute((trx) => work({ trx, shard: pickShard(db.dialect), tryLock: (name) => tryTransactionLock(trx, db.dialect, name) }));
}
