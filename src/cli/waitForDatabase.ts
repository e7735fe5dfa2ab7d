import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { describeDatabase } from '../db/describeDatabase.ts';
import { databaseBusyProblem, isDatabaseUnavailable, NoWritableHost, serverAnswer } from '../db/databaseErrors.ts';
import { isFinalRefusal } from './serverRefusal.ts';

const FIRST_DELAY_MS = 250;
const LONGEST_DELAY_MS = 5_000;
/** How long a first attempt may go unanswered before the wait is said. */
const NO_ANSWER_YET_MS = 1_000;

/**
 * Worth waiting for: PostgreSQL (or the server behind a pooler) not reachable or not accepting
 * connections yet, or out of connections for now; not a refusal that would come again.
 */
function mayComeUp(error: unknown): boolean {
  return (isDatabaseUnavailable(error) || databaseBusyProblem(error) !== undefined) && !isFinalRefusal(error);
}

/**
 * The first query, retried with backoff while PostgreSQL is not reachable yet (containers start
 * in any order), for at most `retryMs`; then the last error is thrown for the caller to explain.
 * Anything else (a missing database or role, a wrong password, a pooler refusing a startup
 * parameter) fails at once: waiting would not fix it. SQLite is a file: nothing to wait for.
 */
export async function waitForDatabase(db: Db, databaseUrl: string, retryMs: number, attemptMs?: number): Promise<void> {
  const giveUpAt = Date.now() + retryMs;
  // A server that takes the connection and never answers (another service's port, a host that
  // drops packets) would leave the first attempt silent for all of PG_CONNECT_TIMEOUT_MS.
  const silence =
    db.dialect === 'postgres'
      ? setTimeout(() => {
          const each = attemptMs === undefined ? '' : `, each attempt for up to ${Math.ceil(attemptMs / 1000)}s (PG_CONNECT_TIMEOUT_MS)`;
          const retrying = retryMs > 0 ? `retrying for up to ${Math.ceil(retryMs / 1000)}s (DB_CONNECT_RETRY_S)` : 'trying once (DB_CONNECT_RETRY_S=0)';
          console.error(`waiting for ${describeDatabase(databaseUrl)} (no answer yet); ${retrying}${each}`);
        }, NO_ANSWER_YET_MS)
      : undefined;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, LONGEST_DELAY_MS)) {
    try {
      await sql`select 1`.execute(db.kysely);
      clearTimeout(silence);
      return;
    } catch (error) {
      clearTimeout(silence);
      const left = giveUpAt - Date.now();
      if (db.dialect !== 'postgres' || !mayComeUp(error) || left <= 0) throw error;
      const answer = serverAnswer(error);
      // Several hosts: each one tried, and why it was passed over.
      const code =
        error instanceof NoWritableHost
          ? error.message
          : answer
            ? `${answer.code} ${answer.message}`
            : ((error as { code?: string }).code ?? (error as Error).message);
      console.error(`waiting for ${describeDatabase(databaseUrl)} (${code}); retrying for up to ${Math.ceil(left / 1000)}s more`);
      await new Promise((resume) => setTimeout(resume, Math.min(delay, left)));
    }
  }
}
