import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { countRows } from '../lists/index.ts';
import { CreatedRowsTally } from './createdRowsTally.ts';
import type { BatchOptions, BulkInserter } from './bulkInsert.ts';
import { claimBatch } from './seedRuns.ts';
import { createIndexes, dropSecondaryIndexes } from './secondaryIndexes.ts';
import { paymentPool, type RunBasis } from './seedSequence.ts';
import { sinkSeedAccounts, sinkSeedPayments } from './sinkSeedRows.ts';
import type { SeedAccount } from './seedRows.ts';

/** What a load in one transaction adds: the run's rows from `from` to its end. */
export interface WholeLoad {
  runId: string;
  basis: RunBasis;
  from: { accounts: number; payments: number };
  /** The accounts the tenant had when the run started, and the run's own accounts committed earlier. */
  existing: ReadonlyArray<{ account_id: string; currency: string }>;
  own: SeedAccount[];
  shard: number;
  /** Rows per COPY (PostgreSQL) and per progress report; any size gives the same rows. */
  chunkRows: number;
  signal?: AbortSignal;
  /** Told the rows loaded so far (not committed: a rollback undoes them all). */
  onLoaded?: (done: { accounts: number; payments: number }) => void;
  /** Told when a phase after the rows begins (the CLI says so: an index build can be long and silent). */
  onPhase?: (phase: Exclude<keyof LoadPhases, 'rows'>) => void;
  pauseMs?: number;
  /** The entries one account's slices may hold before they are written out (ACCOUNT_TALLY_ENTRIES; tests make it small). */
  accountTallyEntries?: number;
  /** Told when one account's tallied counts are written out before the counts phase, with how many entries they were. */
  onWrittenOut?: (entries: number) => void;
}

/** A phase's time: wall, and this process's CPU (both threads, user and system), in ms. */
export interface PhaseTime {
  ms: number;
  cpuMs: number;
}

/**
 * Where a load's time went: what the CLI prints at its end (docs/performance.md, "Seeding").
 * CPU time beside wall time: on a shared machine the wall time is mostly waiting for a core.
 */
export interface LoadPhases {
  /** Dropping the indexes and writing the accounts and payments (and their metadata entries). */
  rows: PhaseTime;
  /** Building payments' secondary indexes again. */
  indexes: PhaseTime;
  /** Adding the tallied counts and bucket counts. */
  counts: PhaseTime;
  /** The commit. */
  commit: PhaseTime;
}

/**
 * Millions of rows referencing a few thousand tenants and accounts: their foreign keys checked
 * once per value at each statement's end, not by a trigger per row (deferredForeignKeys.ts).
 */
const wholeLoadBatch = (tenantId: string): BatchOptions => ({ deferForeignKeys: { tenantId } });

/** The load was stopped by its signal and rolled back. */
class LoadStopped extends Error {}

/**
 * How many entries one account's slices may hold in the tally (CreatedRowsTally.accountEntries)
 * before they are written out: ~100 bytes each as held, so ~100 MB whatever the number of
 * accounts, against the seed worker's 1 GB heap (cli/main.ts). A load of 1,000 accounts holds
 * ~400 an account at 1M payments and never reaches it; 10,000 accounts at 10M payments held ~4M
 * and their count rows ran the worker out of memory after the whole load.
 */
export const ACCOUNT_TALLY_ENTRIES = 1_000_000;

/** What a phase of the load is, in a message that it failed. */
const PHASE_DOING: Record<keyof LoadPhases, string> = {
  rows: 'writing the rows',
  indexes: "building payments' indexes",
  counts: 'adding the counts',
  commit: 'committing',
};

/** The load failed (other than by its signal): where, and that nothing of it was committed; the error it met as its cause. */
export class LoadFailed extends Error {
  constructor(phase: keyof LoadPhases, rows: { accounts: number; payments: number }, cause: unknown) {
    super(
      `the load in one transaction failed while ${PHASE_DOING[phase]} (${rows.accounts} accounts and ${rows.payments} payments written); it was rolled back, nothing of it committed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * PostgreSQL's memory for building an index, for this transaction only (SET LOCAL): the default
 * 64 MB sorts a 10M-row index on disk in many runs.
 */
const POSTGRES_INDEX_MEMORY = '256MB';

/**
 * Loads the rest of a run as ONE transaction: progress claimed, payments' secondary indexes dropped,
 * rows loaded, indexes rebuilt, counts added once, commit. An interrupted load leaves the database as
 * it was; the price is the table locked for the whole load, so only for loading a database
 * (decision 0018). Returns where the time went, or false when stopped by the signal.
 */
export async function seedInOneTransaction(db: Db, inserter: BulkInserter, load: WholeLoad): Promise<LoadPhases | false> {
  const { basis, from } = load;
  const zero = { ms: 0, cpuMs: 0 };
  const phases: LoadPhases = { rows: zero, indexes: zero, counts: zero, commit: zero };
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  let mark = { ms: performance.now(), cpuMs: cpuMs() };
  const lap = (phase: keyof LoadPhases) => {
    const now = { ms: performance.now(), cpuMs: cpuMs() };
    phases[phase] = { ms: now.ms - mark.ms, cpuMs: now.cpuMs - mark.cpuMs };
    mark = now;
  };
  let phase: keyof LoadPhases = 'rows';
  const done = { ...from };
  try {
    await inserter.batch(async (trx, sink) => {
      await claimBatch(trx, { tenantId: basis.tenantId, id: load.runId }, from, { accounts: basis.accounts, payments: basis.payments, finished: true });
      if (db.dialect === 'postgres') await sql`set local maintenance_work_mem = ${sql.lit(POSTGRES_INDEX_MEMORY)}`.execute(trx);
      const indexes = await dropSecondaryIndexes(trx, db.dialect, 'payments');
      // A tenant with no bucket rows yet gets them written as new: every writer of list_buckets
      // writes payments first, which this load holds (PostgreSQL: locked by DROP INDEX; SQLite:
      // the one write lock). Asked before any of the load's own are written out.
      const newBuckets = !(await trx.selectFrom('list_buckets').select('tenant_id').where('tenant_id', '=', basis.tenantId).limit(1).executeTakeFirst());
      const tally = new CreatedRowsTally();
      const limit = load.accountTallyEntries ?? ACCOUNT_TALLY_ENTRIES;
      let writtenOut = false;
      /**
       * One account's counts and buckets tallied so far, added now and let go: additive upserts,
       * between two chunks (not inside a COPY). Rows only payment writers touch, held back by
       * this load: locking them before the load's other count rows deadlocks nothing.
       */
      const writeOutAccounts = async () => {
        const entries = tally.accountEntries;
        await sink.addCounts(tally.accountCountRows(basis.tenantId, load.shard), tally.bucketRows(basis.tenantId, load.shard, 'accounts'));
        tally.clearAccounts();
        writtenOut = true;
        load.onWrittenOut?.(entries);
      };
      const step = async () => {
        load.onLoaded?.({ ...done });
        if (load.pauseMs) await sleep(load.pauseMs);
        if (load.signal?.aborted) throw new LoadStopped();
      };
      const made: SeedAccount[] = [];
      while (done.accounts < basis.accounts) {
        const to = Math.min(basis.accounts, done.accounts + load.chunkRows);
        made.push(...(await sinkSeedAccounts(sink, tally, basis, done.accounts, to)));
        done.accounts = to;
        await step();
      }
      // As in batches: payments go to the accounts the run started with, then all of its own.
      const pool = done.payments < basis.payments ? paymentPool(basis, load.existing, [...load.own, ...made]) : [];
      while (done.payments < basis.payments) {
        const to = Math.min(basis.payments, done.payments + load.chunkRows);
        await sinkSeedPayments(sink, tally, basis, pool, done.payments, to);
        done.payments = to;
        if (tally.accountEntries >= limit) await writeOutAccounts();
        await step();
      }
      lap('rows');
      phase = 'indexes';
      load.onPhase?.('indexes');
      // Stopped between two index builds, not after them all: a stop rolls back what is built.
      await createIndexes(trx, indexes, () => {
        if (load.signal?.aborted) throw new LoadStopped();
      });
      lap('indexes');
      phase = 'counts';
      load.onPhase?.('counts');
      // Counted rows last, in the global order, as every write locks them. Once some of one
      // account's were written out, the rest of them are too (upserts), and the tenant's own
      // rows, which never were, can still be written as new.
      if (writtenOut) await writeOutAccounts();
      // The tenant's count rows, then one account's (list 'payments', account_id set: last in the global order).
      const counts = countRows(basis.tenantId, tally.countDeltas('tenant'), load.shard);
      const accountCounts = tally.accountCountRows(basis.tenantId, load.shard);
      await sink.adjust(
        writtenOut
          ? counts
          : (function* () {
              yield* counts;
              yield* accountCounts;
            })(),
        tally.bucketRows(basis.tenantId, load.shard, writtenOut ? 'tenant' : 'all'),
        newBuckets,
      );
      lap('counts');
      phase = 'commit';
      load.onPhase?.('commit');
      // The last moment a stop rolls back rather than commits.
      if (load.signal?.aborted) throw new LoadStopped();
    }, wholeLoadBatch(basis.tenantId));
  } catch (error) {
    if (error instanceof LoadStopped) return false;
    throw new LoadFailed(phase, done, error);
  }
  lap('commit');
  return phases;
}
