import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from './database.ts';
import { isDatabaseUnavailable, isTransactionConflict } from './databaseErrors.ts';
import { PrimaryPositions } from './primaryPositions.ts';

/**
 * Read replicas with read-your-writes, exactly and across instances (issue 32, decision 0011): a read
 * goes to a replica only when its replay position is at least the tenant's last write position, each
 * replica judged on its own. Remembered positions only move forward, so a stale one can only send a
 * read to the primary. Replicas down, promoted or too far behind the primary are passed over, and
 * their failed reads rerun on the primary (decision 0060).
 */

/** A replica asked less than this long ago is not asked again for a read that finds it short. */
const ASK_AGAIN_AFTER_MS = 2;
/** How long a read waits for replicas to say how far they are before going to the primary. */
const ASK_BUDGET_MS = 20;
/**
 * The background check's period (the primary's position sampled, then every replica asked):
 * lag and liveness for /metrics, a down replica's return. A replica up to date is measured as
 * old as the last sample, so the period is a quarter of the bound (at least 100 ms, at most 1 s).
 */
export function checkEveryMs(maxLagMs: number): number {
  return Math.min(1_000, Math.max(100, Math.floor(maxLagMs / 4)));
}

/** How far a standby is, asked in one statement (bytes from 0/0). */
const REPLAY_QUESTION = sql<{ standby: boolean; replayed: number | null }>`
  select pg_is_in_recovery() as standby, (pg_last_wal_replay_lsn() - '0/0')::bigint as replayed`;

export type ReplicaStatus = 'unknown' | 'up' | 'down' | 'not-a-standby';

/** Why a read went where it went (the `reason` label of db_reads_total). */
export type ReadReason =
  /** A replica had replayed the tenant's last write. */
  | 'caught-up'
  /** No replica is configured (or the database is SQLite). */
  | 'no-replica'
  /** Replicas are up, but none had replayed the tenant's last write. */
  | 'behind-tenant'
  /** No replica is usable: down, not a standby, or lagging past the bound. */
  | 'unusable'
  /** It ran on a replica and failed there (gone away, recovery conflict): run again on the primary. */
  | 'replica-failed';

export interface ReplicaView {
  name: string;
  status: ReplicaStatus;
  /** Replay position last answered (bytes), -1 before the first answer. */
  replayed: number;
  /** How old its data may be (ms): since the primary was last seen at a position it has replayed; Infinity when unknown. */
  lagMs: number;
}

/** One replica: its pool for reads and a one-connection pool for the question of how far it is. */
export class ReadReplica {
  readonly name: string;
  readonly db: Db;
  readonly #probe: Db;
  readonly #positions: PrimaryPositions;
  status: ReplicaStatus = 'unknown';
  replayed = -1;
  /** performance.now() of the last answer (or failure). */
  askedAt = Number.NEGATIVE_INFINITY;
  /** The latest time its data is proven current as of (replay only moves forward: a proof stays one). */
  #currentAsOf = Number.NEGATIVE_INFINITY;
  #asking: Promise<void> | undefined;

  constructor(name: string, db: Db, probe: Db, positions: PrimaryPositions) {
    this.name = name;
    this.db = db;
    this.#probe = probe;
    this.#positions = positions;
  }

  /** Asks how far it is; concurrent callers share one question. Never throws: a failure marks it down. */
  ask(): Promise<void> {
    this.#asking ??= (async () => {
      try {
        const { rows } = await REPLAY_QUESTION.execute(this.#probe.kysely);
        const row = rows[0];
        if (!row?.standby || row.replayed === null) {
          this.status = 'not-a-standby';
        } else {
          const replayed = Number(row.replayed);
          // Behind what it answered before: another server under that name (rebuilt from a backup); no proof holds.
          if (replayed < this.replayed) this.#currentAsOf = Number.NEGATIVE_INFINITY;
          this.status = 'up';
          this.replayed = replayed;
        }
      } catch {
        this.status = 'down';
      } finally {
        this.askedAt = performance.now();
        this.#asking = undefined;
      }
    })();
    return this.#asking;
  }

  /** How old its data may be now (ms); Infinity before anything proves it current. */
  get lagMs(): number {
    const covered = this.#positions.coveredAt(this.replayed);
    if (covered !== undefined && covered > this.#currentAsOf) this.#currentAsOf = covered;
    return performance.now() - this.#currentAsOf;
  }

  usable(maxLagMs: number): boolean {
    return this.status === 'up' && this.lagMs <= maxLagMs;
  }

  view(): ReplicaView {
    return { name: this.name, status: this.status, replayed: this.replayed, lagMs: this.lagMs };
  }

  async close(): Promise<void> {
    await Promise.all([this.db.close(), this.#probe.close()]);
  }
}

/** Where one read runs, and why there. */
export interface ReadTarget {
  db: Db;
  /** `primary`, or the replica's `host:port`. */
  target: string;
  reason: ReadReason;
}

export class ReadRouting {
  readonly primary: Db;
  readonly replicas: readonly ReadReplica[];
  readonly maxLagMs: number;
  /** The primary's WAL position over time, which the replicas' lag is measured against. */
  readonly positions: PrimaryPositions;
  /** Reads by target and reason, for /metrics. */
  readonly counts = new Map<string, number>();
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;

  constructor(primary: Db, replicas: ReadReplica[] = [], maxLagMs = Number.POSITIVE_INFINITY, positions = new PrimaryPositions()) {
    this.primary = primary;
    this.replicas = replicas;
    this.maxLagMs = maxLagMs;
    this.positions = positions;
  }

  /** Checks once (the start-up line says what the replicas answered), then every checkEveryMs. */
  async start(): Promise<void> {
    if (this.replicas.length === 0) return;
    await this.#check();
    this.#timer = setInterval(() => void this.#check(), checkEveryMs(this.maxLagMs));
    this.#timer.unref();
  }

  /** The primary's position first, then the replicas: one up to date has then replayed that sample. */
  #check(): Promise<void> {
    this.#checking ??= (async () => {
      try {
        await this.positions.sample();
        await Promise.all(this.replicas.map((r) => r.ask()));
      } finally {
        this.#checking = undefined;
      }
    })();
    return this.#checking;
  }

  /**
   * Where a read must run for a tenant whose last acknowledged write reached `writtenUpTo`
   * (0: none recorded): the first replica, in turn, that is usable and has replayed that far,
   * else the primary.
   */
  async readerFor(writtenUpTo: number): Promise<ReadTarget> {
    if (this.replicas.length === 0) return { db: this.primary, target: 'primary', reason: 'no-replica' };
    const start = this.#next++ % this.replicas.length;
    const order = [...this.replicas.slice(start), ...this.replicas.slice(0, start)];
    const found = this.#caughtUp(order, writtenUpTo);
    if (found) return found;
    const usable = order.filter((r) => r.usable(this.maxLagMs));
    if (usable.length === 0) return { db: this.primary, target: 'primary', reason: 'unusable' };
    const now = performance.now();
    const worthAsking = usable.filter((r) => now - r.askedAt >= ASK_AGAIN_AFTER_MS);
    if (worthAsking.length > 0) {
      const budget = new AbortController();
      await Promise.race([Promise.all(worthAsking.map((r) => r.ask())), sleep(ASK_BUDGET_MS, undefined, { signal: budget.signal }).catch(() => {})]);
      budget.abort();
      const caughtUp = this.#caughtUp(order, writtenUpTo);
      if (caughtUp) return caughtUp;
    }
    return { db: this.primary, target: 'primary', reason: 'behind-tenant' };
  }

  #caughtUp(order: ReadReplica[], writtenUpTo: number): ReadTarget | undefined {
    const replica = order.find((r) => r.usable(this.maxLagMs) && r.replayed >= writtenUpTo);
    return replica && { db: replica.db, target: replica.name, reason: 'caught-up' };
  }

  /**
   * Runs `work` on where the read must run (readerFor), counted; when it fails on a replica
   * because the replica went away or cancelled it over a conflict with recovery, on the primary
   * instead. `work` must send nothing before it resolves (it may run twice).
   */
  async read<T>(writtenUpTo: number, work: (db: Db) => Promise<T>, seen?: (target: ReadTarget) => void): Promise<T> {
    const chosen = await this.readerFor(writtenUpTo);
    try {
      const result = await work(chosen.db);
      this.#count(chosen);
      seen?.(chosen);
      return result;
    } catch (error) {
      if (chosen.target === 'primary' || !(isDatabaseUnavailable(error) || isTransactionConflict(error))) throw error;
      const replica = this.replicas.find((r) => r.name === chosen.target);
      if (replica && isDatabaseUnavailable(error)) replica.status = 'down';
      const fallback: ReadTarget = { db: this.primary, target: 'primary', reason: 'replica-failed' };
      const result = await work(this.primary);
      this.#count(fallback);
      seen?.(fallback);
      return result;
    }
  }

  #count({ target, reason }: ReadTarget): void {
    const key = `${target}\u0000${reason}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Reads so far, by target and reason. */
  readCounts(): Array<{ target: string; reason: string; n: number }> {
    return [...this.counts].map(([key, n]) => {
      const [target, reason] = key.split('\u0000') as [string, string];
      return { target, reason, n };
    });
  }

  views(): ReplicaView[] {
    return this.replicas.map((r) => r.view());
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([...this.replicas.map((r) => r.close()), this.positions.close()]);
  }
}
