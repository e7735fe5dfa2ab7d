import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { describeDatabase } from '../db/describeDatabase.ts';
import { databaseBusyProblem, isDatabaseUnavailable, NoWritableHost, serverAnswer } from '../db/databaseErrors.ts';
import { isFinalRefusal } from './serverRefusal.ts';

const FIRST_DELAY_MS = 250;
const LONGEST_DELAY_MS = 5_000;

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
export async function waitForDatabase(db: Db, databaseUrl: string, retryMs: number): Promise<void> {
  const giveUpAt = Date.now() + retryMs;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, LONGEST_DELAY_MS)) {
    try {
      await sql`select 1`.execute(db.kysely);
      return;
    } catch (error) {
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
