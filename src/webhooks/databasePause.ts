import { databaseProblem } from '../db/databaseErrors.ts';

/** Where the sender says what it does: Fastify's logger, or anything with the same two methods. */
export interface SenderLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** The longest the sender waits between two tries while the database cannot take its writes. */
const LONGEST_PAUSE_MS = 30_000;

/**
 * The sender's backoff while the database is away, read-only or out of connections: every claim
 * and every recorded attempt is a write, so trying each poll would only log a failure a second.
 * The first such failure pauses the sender (one warning), each further one doubles the wait
 * (from the poll interval up to 30 s), and the first write that succeeds resumes it (one info
 * line). Any other failure is the caller's to report.
 */
export class DatabasePause {
  readonly #log: SenderLog;
  readonly #pollMs: number;
  #pausedAt: number | undefined;
  #waitMs = 0;
  #resumeAt = 0;

  constructor(log: SenderLog, pollMs: number) {
    this.#log = log;
    this.#pollMs = pollMs;
  }

  /** False while paused: not yet time to try the database again. */
  mayTry(now = Date.now()): boolean {
    return now >= this.#resumeAt;
  }

  /** A write went through: the database takes writes again. */
  succeeded(now = Date.now()): void {
    if (this.#pausedAt === undefined) return;
    this.#log.info({ pausedMs: now - this.#pausedAt }, 'webhook sender resumed: the database takes writes again');
    this.#pausedAt = undefined;
    this.#resumeAt = 0;
  }

  /** True when `error` is the database's condition (now paused, quietly); false for anything else. */
  failed(error: unknown, now = Date.now()): boolean {
    const problem = databaseProblem(error);
    if (!problem) return false;
    if (this.#pausedAt === undefined) {
      this.#pausedAt = now;
      this.#waitMs = this.#pollMs;
      this.#log.warn(
        { err: error },
        `webhook sender paused: the database cannot take writes now (${problem.detail ?? problem.title}); retrying quietly, up to every ${LONGEST_PAUSE_MS / 1000} s`,
      );
    } else {
      this.#waitMs = Math.min(this.#waitMs * 2, LONGEST_PAUSE_MS);
    }
    this.#resumeAt = now + this.#waitMs;
    return true;
  }
}
