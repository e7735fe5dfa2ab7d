import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { vacuumTable } from '../../db/vacuumTable.ts';
import { foldTenantChanges, hasChanges, measureFoldLag } from './foldChanges.ts';

export interface FoldSettings {
  /** How soon after a write commits its tenant's changes are folded (COUNT_FOLD_MS). */
  intervalMs: number;
  /** Changes folded per transaction. */
  batch: number;
  /** How often every tenant is checked for changes another instance recorded or left behind. */
  sweepMs: number;
  /** A warning names the lag when the oldest change waiting is older than this. */
  warnAfterMs: number;
  /** PostgreSQL: list_changes is vacuumed at most this often, after folds (decision 0100). */
  vacuumMs: number;
}

export const DEFAULT_FOLD_SETTINGS: FoldSettings = { intervalMs: 100, batch: 500, sweepMs: 10_000, warnAfterMs: 30_000, vacuumMs: 1_000 };

/** The longest wait between vacuums of list_changes while they fail. */
export const LONGEST_VACUUM_PAUSE_MS = 300_000;

/**
 * How long after a vacuum of list_changes the next may run: `vacuumMs` after one that worked, four
 * times longer after each failure: one cut off by the statement timeout (a table bloated before
 * this release) would otherwise run again every second, for nothing.
 */
export function vacuumPauseAfter(previousMs: number, failed: boolean, vacuumMs: number): number {
  return failed ? Math.min(Math.max(previousMs, vacuumMs, 1_000) * 4, LONGEST_VACUUM_PAUSE_MS) : vacuumMs;
}

/**
 * Folds list changes into the counts off the request path: the tenants this process wrote to,
 * intervalMs after their writes (many writes, one fold), and every tenant on a sweep (writes of
 * instances that stopped). Any number of processes may run one: a change is folded once
 * (foldTenantChanges). Reads are exact either way; the fold keeps the changes they add up few.
 */
export function startCountFolder(db: Db, log: FastifyBaseLogger, settings: FoldSettings = DEFAULT_FOLD_SETTINGS) {
  const dirty = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  let vacuumedAt = Number.NEGATIVE_INFINITY;
  let vacuumPause = settings.vacuumMs;
  const foldAll = async (tenants: Iterable<string>) => {
    let folded = 0;
    for (const tenantId of tenants) {
      try {
        for (let n = settings.batch; n === settings.batch && !stopped; ) {
          const result = await foldTenantChanges(db, tenantId, settings.batch);
          n = result === 'busy' ? 0 : result;
          folded += n;
        }
      } catch (err) {
        // Left for the next fold: the changes are still there and every read still adds them.
        log.warn({ err, tenantId }, 'folding list changes failed; will retry');
        dirty.add(tenantId);
      }
    }
    if (folded > 0 && performance.now() - vacuumedAt >= vacuumPause && !stopped) {
      vacuumedAt = performance.now();
      // Else every read of the tail steps over each change folded since the last vacuum (decision 0100).
      const failure = await vacuumTable(db.kysely, 'list_changes').then(
        () => undefined,
        (err: unknown) => err ?? new Error('vacuum failed'),
      );
      vacuumPause = vacuumPauseAfter(vacuumPause, failure !== undefined, settings.vacuumMs);
      if (failure)
        log.warn(
          { err: failure },
          `vacuuming list_changes failed; counts read its dead rows until one works (next try in ${Math.round(vacuumPause / 1000)} s)`,
        );
    }
  };
  const run = (work: () => Promise<void>) => {
    running = (running ?? Promise.resolve())
      .then(work)
      .catch((err) => log.warn({ err }, 'folding list changes failed; will retry'))
      .finally(() => {
        if (dirty.size > 0) schedule();
      });
  };
  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      run(async () => {
        const tenants = [...dirty];
        dirty.clear();
        await foldAll(tenants);
      });
    }, settings.intervalMs);
    timer.unref();
  };
  const unlisten = db.listChanges.listen((tenants) => {
    for (const t of tenants) dirty.add(t);
    schedule();
  });
  const sweep = setInterval(
    () =>
      run(async () => {
        // Only the tenants with changes waiting: a fold is a write transaction (SQLite's one writer).
        const tenants = await db.kysely.selectFrom('tenants').select('id').execute();
        const waiting: string[] = [];
        for (const { id } of tenants) if (await hasChanges(db, id)) waiting.push(id);
        await foldAll(waiting);
        const lag = await measureFoldLag(db);
        if (lag.seconds * 1000 > settings.warnAfterMs)
          log.warn(
            { changes: lag.changes, seconds: Math.round(lag.seconds) },
            `list counts are folded ${Math.round(lag.seconds)} s behind (${lag.changes} changes waiting)`,
          );
      }),
    settings.sweepMs,
  );
  sweep.unref();
  return {
    async stop() {
      stopped = true;
      unlisten();
      clearInterval(sweep);
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
