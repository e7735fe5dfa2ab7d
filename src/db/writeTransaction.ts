import type { Insertable, InsertQueryBuilder, QueryCreator, RawBuilder, Transaction, UpdateQueryBuilder } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { pickShard } from './counterShard.ts';
import type { Db } from './database.ts';
import { isTransactionConflict } from './databaseErrors.ts';
import type { Database, Dialect } from './schema.ts';
import type { StatementGuard } from './guardedStatement.ts';
import { tryTransactionLockAndInsert, type LockAndInsertOutcome } from './transactionLock.ts';

/**
 * What a write runs in: its transaction, and the counter shard its count deltas go to, chosen by
 * the database layer (counterShard.ts). Rows it reads to change are locked with Kysely's
 * `forUpdate()` on either database (nodeSqliteDialect.ts). So a write never asks which
 * database it is on, except to combine statements only PostgreSQL can run as one (a round trip
 * there, a function call on SQLite: lists/counters/countedRows.ts).
 */
export interface Write {
  trx: Transaction<Database>;
  dialect: Dialect;
  shard: number;
  /** Notes that this write recorded list changes of `tenantId` (signalled once it commits). */
  changed(tenantId: string): void;
  /**
   * A lock on `name` until this transaction ends (`locked`: false when another holds it), then,
   * only if it was taken, `row` inserted unless a row has its `conflict` columns (and only if
   * `onlyIf` holds), and none of it unless `guard` holds: one round trip on PostgreSQL (transactionLock.ts).
   */
  tryLockAndInsert<T extends keyof Database & string>(
    name: string,
    table: T,
    row: Insertable<Database[T]>,
    conflict: Array<keyof Database[T] & string>,
    onlyIf?: RawBuilder<unknown>,
    guard?: StatementGuard,
  ): Promise<LockAndInsertOutcome>;
  /**
   * An insert nothing in the write reads back. PostgreSQL holds it for the next statement built on
   * `withHeld` (one round trip for several, decision 0092), or sends it before the commit; SQLite
   * runs it at once (a statement there is a function call).
   */
  hold(insert: HeldInsert): Promise<void>;
  /** PostgreSQL: a query creator whose statement runs the held inserts, and `inserts`, as data-modifying CTEs. */
  withHeld(...inserts: HeldInsert[]): QueryCreator<Database>;
  /** Sends what is held as statements of their own (before a savepoint, a commit). */
  sendHeld(): Promise<void>;
  /** Forgets what is held: the write went back to a savepoint taken after sendHeld. */
  dropHeld(): void;
}

/** An insert (or an update of a row an earlier statement of the write wrote) that nothing in the write reads back. */
// biome-ignore lint/suspicious/noExplicitAny: a statement on any table
export type HeldInsert = InsertQueryBuilder<Database, any, any> | UpdateQueryBuilder<Database, any, any, any>;

/** Runs of one write transaction at most: the first and two more after a conflict. */
export const WRITE_ATTEMPTS = 3;
/** The wait before a rerun grows from this (with jitter, so the two sides of a deadlock do not meet again in step). */
const RERUN_DELAY_MS = 20;

/**
 * Runs `work` in one transaction of `db`: committed when it resolves, rolled back when it throws.
 * A serialization failure or deadlock (40001, 40P01) runs it again, up to WRITE_ATTEMPTS times, so
 * `work` must do nothing that outlives its transaction. No other failure is rerun: after a lost
 * connection the commit may have happened, and the Idempotency-Key makes the client's retry safe.
 */
export async function inWriteTransaction<T>(db: Db, work: (write: Write) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const changed = new Set<string>();
      const result = await db.kysely.transaction().execute(async (trx) => {
        const write = writeIn(trx, db.dialect, changed);
        const done = await work(write);
        await write.sendHeld();
        return done;
      });
      db.listChanges.committed(changed);
      return result;
    } catch (error) {
      if (attempt >= WRITE_ATTEMPTS || !isTransactionConflict(error)) throw error;
      await sleep(RERUN_DELAY_MS * attempt * (0.5 + Math.random()));
    }
  }
}

function writeIn(trx: Transaction<Database>, dialect: Dialect, changed: Set<string>): Write {
  let held: HeldInsert[] = [];
  const sendHeld = async () => {
    const inserts = held;
    held = [];
    for (const insert of inserts) await insert.execute();
  };
  return {
    trx,
    dialect,
    shard: pickShard(dialect),
    changed: (tenantId) => changed.add(tenantId),
    tryLockAndInsert: (name, table, row, conflict, onlyIf, guard) => tryTransactionLockAndInsert(trx, dialect, name, table, row, conflict, onlyIf, guard),
    async hold(insert) {
      if (dialect === 'sqlite') await insert.execute();
      else held.push(insert);
    },
    withHeld(...inserts) {
      const all = [...held, ...inserts];
      held = [];
      // biome-ignore lint/suspicious/noExplicitAny: each CTE widens the creator's type; the statement reads none of them
      return all.reduce<QueryCreator<any>>((creator, insert, i) => creator.with(`held_${i}`, () => insert), trx) as QueryCreator<Database>;
    },
    sendHeld,
    dropHeld: () => {
      held = [];
    },
  };
}
