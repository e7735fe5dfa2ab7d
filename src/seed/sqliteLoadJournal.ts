import type { DatabaseSync } from 'node:sqlite';
import type { Db } from '../db/database.ts';

/** Which journal a SQLite load in one transaction writes through (docs/performance.md, "Seeding"). */
export type LoadJournal = 'wal' | 'rollback';

/**
 * Runs a SQLite load in one transaction through a rollback journal instead of the WAL, when
 * payments is empty and no other connection has the database open; otherwise as it is (WAL;
 * PostgreSQL: `work(undefined)`).
 *
 * Why: an uncommitted transaction's pages live in the WAL, and every page SQLite reads that is
 * not in its cache is looked up in the WAL index first, one hash table per 4,096 frames, newest
 * to oldest. Each of the 13 CREATE INDEX reads the whole loaded table, so a load's index builds
 * cost pages × frames: superlinear, 10M payments (a 9 GB WAL before the builds, 20 GB and
 * growing during them) did not finish its builds in 22 minutes where 1M takes half a minute.
 * With a rollback journal the loaded pages go to the database file and are read from there;
 * into an empty table the journal holds only the few pages that existed before (new pages past
 * the file's end are not journaled), and the commit has no checkpoint to copy.
 *
 * What it keeps: an interrupted load (error, signal, killed process) leaves the database as it
 * was: the rollback, or the next connection to open the file, plays the journal back and cuts
 * the file to its old size; every open sets WAL again (openSqlite). Counts are exact either way.
 * What it gives up, for a database whose payments are empty: during the load another process
 * cannot open or read it (it waits its lock timeout and fails) where in WAL it would read the
 * snapshot before the load. The switch needs no other connection open, so a serving process
 * keeps the WAL path; so does a load into a table that already has rows.
 */
export async function withLoadJournal<T>(db: Db, work: (journal: LoadJournal | undefined) => Promise<T>): Promise<T> {
  if (db.native.dialect !== 'sqlite') return work(undefined);
  const database = db.native.database;
  if (database.prepare('select 1 from payments limit 1').get() || !setJournal(database, 'delete')) return work('wal');
  try {
    return await work('rollback');
  } finally {
    // Back to WAL at once; if another process opened the file meanwhile, its open set WAL already.
    setJournal(database, 'wal');
  }
}

/** Sets the journal mode; false when another connection keeps it from changing (it needs the file alone). */
function setJournal(database: DatabaseSync, mode: 'delete' | 'wal'): boolean {
  try {
    const row = database.prepare(`pragma journal_mode = ${mode}`).get() as { journal_mode: string };
    return row.journal_mode === mode;
  } catch (error) {
    if (error instanceof Error && /locked|busy/i.test(error.message)) return false;
    throw error;
  }
}
