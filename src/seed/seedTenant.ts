import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/database.ts';
import { findOrCreateTenant } from '../auth/tenantQueries.ts';
import { countRows } from '../lists/index.ts';
import { pickShard } from '../db/counterShard.ts';
import { CreatedRowsTally } from './createdRowsTally.ts';
import { openBulkInserter } from './bulkInsert.ts';
import { paymentsHoldAtMost } from './paymentsHoldAtMost.ts';
import { seedInOneTransaction, type LoadPhases, type WholeLoad } from './seedInOneTransaction.ts';
import { claimBatch, findOrStartRun, findRun, RUN_TAKEN, runPoolAccounts, SeedInputError } from './seedRuns.ts';

export { SeedInputError };
import { paymentPool, seedAccounts, type RunBasis } from './seedSequence.ts';
import { sinkSeedAccounts, sinkSeedPayments } from './sinkSeedRows.ts';
import { type LoadJournal, withLoadJournal } from './sqliteLoadJournal.ts';
import type { SeedAccount } from './seedRows.ts';

export interface SeedOptions {
  tenant: string;
  accounts: number;
  payments: number;
  seed: string;
  /** Newest payment time; data spreads over the months before it. */
  until: Date;
  fingerprintSecret: string;
  /** Rows per batch (one transaction each); by default sized for the database (SQLite: to take ~2 s). Any size gives the same rows. */
  batchRows?: number;
  /** Stops once the batches being written commit; the same call later continues the run. */
  signal?: AbortSignal;
  /** Told the run's progress when it starts or resumes, and after every committed batch. */
  onProgress?: (progress: SeedProgress) => void;
  /** A load in one transaction: told when a phase after the rows begins (WholeLoad.onPhase). */
  onPhase?: WholeLoad['onPhase'];
  /** Waits this long after each batch (tests use it to stop a run midway; it also eases the load on a live database). */
  pauseMs?: number;
  /**
   * `one-transaction`: the rest of the run as one transaction with payments' secondary indexes
   * built after the rows (seedInOneTransaction: fast, all or nothing, but payments is locked for
   * the whole load); `batched`: batches that each commit (a service can go on using the
   * database). `auto` (the default): one transaction when payments holds fewer rows than the
   * run has left to add (a database being loaded), batches otherwise.
   */
  mode?: SeedMode;
  /** A load in one transaction: how many entries one account's tallied counts may hold before they are written out (WholeLoad.accountTallyEntries). */
  accountTallyEntries?: number;
  /** A load in one transaction: told when they are (WholeLoad.onWrittenOut). */
  onWrittenOut?: WholeLoad['onWrittenOut'];
}

export type SeedMode = 'auto' | 'one-transaction' | 'batched';

export interface SeedProgress {
  accounts: { done: number; total: number };
  payments: { done: number; total: number };
  /** Rows of this run that earlier, interrupted calls committed. */
  before: { accounts: number; payments: number };
}

export interface SeedResult {
  tenantId: string;
  /** Rows this call added. */
  accounts: number;
  payments: number;
  /** Rows of the same run earlier calls had added (an interrupted run being continued). */
  before: { accounts: number; payments: number };
  /** `completed`: the run is whole now; `already-completed`: it was before this call, which added nothing; `interrupted`: stopped by the signal. */
  outcome: 'completed' | 'already-completed' | 'interrupted';
  /** When an already completed run had completed. */
  finishedAt?: string;
  /** A load in one transaction: where its time went. */
  phases?: LoadPhases;
  /** A load in one transaction on SQLite: whether it went through the WAL or a rollback journal (sqliteLoadJournal.ts). */
  journal?: LoadJournal;
}

/**
 * Rows per batch on PostgreSQL. Each batch also adds to every count and bucket row its rows
 * fall in, ~100k rows at any batch size on the tenant's scale: larger batches add to them
 * fewer times (measured: 100k-row batches seed 1M payments about a third faster than 50k).
 */
export const POSTGRES_BATCH_ROWS = 100_000;

/**
 * SQLite holds its one write lock for a whole batch, and other writers wait at most their busy
 * timeout (5 s) for it: batches are sized to take about this long, as the database grows.
 */
const SQLITE_BATCH_MS = 2_000;
const SQLITE_BATCH_ROWS = { first: 5_000, min: 500, max: 50_000 };

interface Progress {
  accounts: number;
  payments: number;
}

/**
 * Whether the rest of a run goes in one transaction (SeedOptions.mode): in auto, when payments
 * holds fewer rows than are left to add (rebuilding its indexes then costs less than keeping
 * them, and nothing else is likely to be using the table).
 */
async function inOneTransaction(db: Db, mode: SeedMode, payments: number): Promise<boolean> {
  if (mode !== 'auto') return mode === 'one-transaction';
  return payments > 0 && (await paymentsHoldAtMost(db, payments));
}

/**
 * Adds exactly N accounts and M payments to a tenant (created if missing), in batches that each commit
 * their rows, counts and progress together, or loading a database as one transaction (decision 0018).
 * A run is identified by its arguments: calling again continues an interrupted run from its last
 * committed batch with the same rows, and adds nothing once complete.
 */
export async function seedTenant(db: Db, options: SeedOptions): Promise<SeedResult> {
  const tenant = await findOrCreateTenant(db.kysely, options.tenant);
  if (
    options.payments > 0 &&
    options.accounts === 0 &&
    !(await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenant.id).limit(1).executeTakeFirst())
  ) {
    throw new SeedInputError(`tenant ${options.tenant} has no accounts to pay into; seed some with --accounts`);
  }
  const run = await findOrStartRun(db.kysely, {
    tenantId: tenant.id,
    seed: options.seed,
    accounts: options.accounts,
    payments: options.payments,
    until: options.until,
  });
  const before = { accounts: run.accounts_done, payments: run.payments_done };
  const done: Progress = { ...before };
  const result = (outcome: SeedResult['outcome']): SeedResult => ({
    tenantId: tenant.id,
    accounts: done.accounts - before.accounts,
    payments: done.payments - before.payments,
    before,
    outcome,
  });
  if (run.finished_at) return { ...result('already-completed'), finishedAt: run.finished_at };

  const basis: RunBasis = {
    tenant: options.tenant,
    tenantId: tenant.id,
    seed: options.seed,
    accounts: run.accounts,
    payments: run.payments,
    untilMs: options.until.getTime(),
    accountsBefore: run.accounts_before,
    paymentsBefore: run.payments_before,
    fingerprintSecret: options.fingerprintSecret,
  };
  const existing = await runPoolAccounts(db.kysely, { tenantId: tenant.id, id: run.id });
  if (run.payments > 0 && existing.length + run.accounts === 0) {
    throw new SeedInputError(`tenant ${options.tenant} has no accounts to pay into; seed some with --accounts`);
  }
  // The run's own accounts committed earlier are made again (their cards are not stored) to pay into.
  const own: SeedAccount[] = [];
  for (const made of seedAccounts(basis, 0, run.accounts_done)) own.push(made.account);
  let pool: SeedAccount[] | undefined;

  let batchRows = Math.max(1, options.batchRows ?? (db.dialect === 'postgres' ? POSTGRES_BATCH_ROWS : SQLITE_BATCH_ROWS.first));
  const adaptive = options.batchRows === undefined && db.dialect === 'sqlite';
  const report = () =>
    options.onProgress?.({ accounts: { done: done.accounts, total: run.accounts }, payments: { done: done.payments, total: run.payments }, before });
  report();

  // One shard for the whole run (as one write picks one): its batches add to the same count rows
  // rather than spreading each batch's ~100k bucket rows over every shard; other writers of the
  // tenant mostly pick other shards and do not wait on the seed's.
  const shard = pickShard(db.dialect);
  /** What a failed write means: rows already there (a unique id) or progress that moved are another process on the same run. */
  const takenOr = async (error: unknown) => {
    const now = await findRun(db.kysely, {
      tenantId: tenant.id,
      seed: options.seed,
      accounts: options.accounts,
      payments: options.payments,
      until: options.until,
    });
    return now && (now.accounts_done !== done.accounts || now.payments_done !== done.payments) ? new SeedInputError(RUN_TAKEN) : error;
  };
  if (await inOneTransaction(db, options.mode ?? 'auto', run.payments - done.payments)) {
    const { finished, journal } = await withLoadJournal(db, async (journal) => {
      const inserter = await openBulkInserter(db);
      try {
        const finished = await seedInOneTransaction(db, inserter, {
          runId: run.id,
          basis,
          from: { ...done },
          existing,
          own,
          shard,
          chunkRows: options.batchRows ?? POSTGRES_BATCH_ROWS,
          signal: options.signal,
          pauseMs: options.pauseMs,
          onPhase: options.onPhase,
          accountTallyEntries: options.accountTallyEntries,
          onWrittenOut: options.onWrittenOut,
          onLoaded: (loaded) =>
            options.onProgress?.({
              accounts: { done: loaded.accounts, total: run.accounts },
              payments: { done: loaded.payments, total: run.payments },
              before,
            }),
        });
        return { finished, journal };
      } catch (error) {
        throw await takenOr(error);
      } finally {
        await inserter.close();
      }
    });
    if (!finished) return result('interrupted');
    Object.assign(done, { accounts: run.accounts, payments: run.payments });
    report();
    return { ...result('completed'), phases: finished, journal };
  }
  const inserter = await openBulkInserter(db);
  /** One batch: its rows, then (once the batch before it committed) the run's progress and the counts. */
  const writeBatch = (from: Progress, to: Progress & { finished: boolean }, previous: Promise<unknown>) =>
    inserter.batch(async (trx, sink) => {
      const tally = new CreatedRowsTally();
      const made = to.accounts > from.accounts ? await sinkSeedAccounts(sink, tally, basis, from.accounts, to.accounts) : [];
      if (to.payments > from.payments) {
        pool ??= paymentPool(basis, existing, own);
        await sinkSeedPayments(sink, tally, basis, pool, from.payments, to.payments);
      }
      // Batches commit in order; a batch whose predecessor failed rolls back too.
      await previous;
      await claimBatch(trx, { tenantId: tenant.id, id: run.id }, from, to);
      // Counted rows are locked last (list_counts, then list_buckets, each in key order), as every write does.
      await sink.adjust(countRows(tenant.id, tally.countDeltas(), shard), tally.bucketRows(tenant.id, shard));
      return made;
    });

  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let previous: Promise<unknown> = Promise.resolve();
  try {
    // Until the batch that finishes the run (a run of no rows has one, which only marks it finished).
    for (const next: Progress = { ...done }; ; ) {
      if (options.signal?.aborted || failure) break;
      const from = { ...next };
      const to = {
        accounts: Math.min(run.accounts, from.accounts + batchRows),
        payments: from.accounts < run.accounts ? from.payments : Math.min(run.payments, from.payments + batchRows),
        finished: false,
      };
      to.finished = to.accounts === run.accounts && to.payments === run.payments;
      Object.assign(next, { accounts: to.accounts, payments: to.payments });
      // Payments go to every account of the run: they wait for the last accounts batch.
      if (to.payments > from.payments && from.accounts > done.accounts) await Promise.allSettled(inFlight);
      if (failure) break;
      const started = performance.now();
      const batch = writeBatch(from, to, previous);
      previous = batch;
      const settled: Promise<void> = batch.then(
        (made) => {
          if (adaptive) {
            const rows = to.accounts - from.accounts + to.payments - from.payments;
            const ms = Math.max(1, performance.now() - started);
            // Towards the size that takes SQLITE_BATCH_MS at the rate just seen, at most halving or doubling.
            const target = Math.min(batchRows * 2, Math.max(batchRows / 2, (rows * SQLITE_BATCH_MS) / ms));
            batchRows = Math.round(Math.min(SQLITE_BATCH_ROWS.max, Math.max(SQLITE_BATCH_ROWS.min, target)));
          }
          own.push(...made);
          Object.assign(done, { accounts: to.accounts, payments: to.payments });
          if (to.finished) run.finished_at = new Date().toISOString();
          report();
        },
        (error: unknown) => {
          failure ??= { error };
        },
      );
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
      if (inFlight.size >= inserter.lanes) await Promise.race(inFlight);
      if (options.pauseMs) await sleep(options.pauseMs);
      if (to.finished) break;
    }
    await Promise.allSettled(inFlight);
  } finally {
    await Promise.allSettled(inFlight);
    await inserter.close();
  }
  if (failure) throw await takenOr(failure.error);
  return result(run.finished_at ? 'completed' : 'interrupted');
}
