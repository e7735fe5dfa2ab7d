import type { DatabaseSync } from 'node:sqlite';
import type { Db } from '../db/database.ts';

/** Which journal a SQLite load in one transaction writes through (docs/performance.md, "Seeding"). */
export type LoadJournal = 'wal' | 'rollback';

/**
 * Runs a SQLite load in one transaction through a rollback journal instead of the WAL, when payments
 * is empty and no other connection has the database open; otherwise as it is. Uncommitted pages in the
 * WAL make each index build's reads superlinear (decision 0019). An interrupted load still rolls back,
 * and every open sets WAL again; other processes cannot read during the load.
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
