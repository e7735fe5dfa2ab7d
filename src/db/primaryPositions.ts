import { sql } from 'kysely';
import type { Db } from './database.ts';

/** Samples kept: at one every 100 ms to 1 s, the last 25 s to 4 min (an older proof is kept by each replica). */
const KEPT = 256;

const POSITION_QUESTION = sql<{ position: number }>`select (pg_current_wal_lsn() - '0/0')::bigint as position`;

interface Sample {
  /** performance.now() just before the question was sent. */
  at: number;
  /** The primary's WAL position it answered (bytes from 0/0). */
  position: number;
}

/**
 * The primary's WAL position over time, as this process saw it. The time of a sample is taken
 * before it is asked, so its position is at or past every commit made before that time: a
 * standby whose replay has reached it holds everything committed by then. How old a standby's
 * data may be is thus bounded by the time since the latest sample it has replayed, measured on
 * this process's own clock, whether the standby is still receiving WAL or not.
 */
export class PrimaryPositions {
  readonly #probe: Db | undefined;
  readonly #samples: Sample[] = [];
  #sampling: Promise<void> | undefined;

  /** `probe`: a connection to the primary of its own; none (tests): samples are only recorded. */
  constructor(probe?: Db) {
    this.#probe = probe;
  }

  /** Asks the primary once; concurrent callers share the question. Never throws: a failure adds no sample. */
  sample(): Promise<void> {
    const probe = this.#probe;
    if (!probe) return Promise.resolve();
    this.#sampling ??= (async () => {
      const at = performance.now();
      try {
        const { rows } = await POSITION_QUESTION.execute(probe.kysely);
        const position = rows[0]?.position;
        if (position !== undefined && position !== null) this.record(at, Number(position));
      } catch {
        // No sample: the replicas' proofs age, and reads move to the primary past the bound.
      } finally {
        this.#sampling = undefined;
      }
    })();
    return this.#sampling;
  }

  record(at: number, position: number): void {
    this.#samples.push({ at, position });
    if (this.#samples.length > KEPT) this.#samples.shift();
  }

  /** When the primary was last seen at or below `replayed` (performance.now()); undefined when no kept sample is. */
  coveredAt(replayed: number): number | undefined {
    for (let i = this.#samples.length - 1; i >= 0; i--) {
      const sample = this.#samples[i] as Sample;
      if (sample.position <= replayed) return sample.at;
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.#probe?.close();
  }
}
