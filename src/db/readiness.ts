import { sql } from 'kysely';
import { DEFAULT_PING_TIMEOUT_MS, type Db } from './database.ts';
import { NoWritableHost } from './databaseErrors.ts';
import { READ_ONLY_QUESTION } from './readOnlyQuestion.ts';

export type Readiness = 'ready' | 'not-answering' | 'read-only';

/**
 * Whether the database can serve this instance now: it answers within `timeoutMs` and (PostgreSQL)
 * takes writes. A primary back as a standby, or a database set read-only, answers reads and refuses
 * every write, so a load balancer should send clients elsewhere. With several hosts in DATABASE_URL
 * only one that takes writes is ever connected to (decision 0071).
 */
export async function databaseReadiness(db: Db, timeoutMs = DEFAULT_PING_TIMEOUT_MS): Promise<Readiness> {
  const probe = db.dialect === 'postgres' ? sql.raw<{ read_only: boolean }>(READ_ONLY_QUESTION) : sql<{ read_only: boolean }>`select 0 as read_only`;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Readiness>((done) => {
    timer = setTimeout(() => done('not-answering'), timeoutMs);
  });
  const answered = probe.execute(db.kysely).then(
    ({ rows }): Readiness => (rows[0]?.read_only === true ? 'read-only' : 'ready'),
    // Several hosts, each up and read-only (a failover under way): read-only, as one standby would be.
    (error): Readiness => (error instanceof NoWritableHost && error.onlyReadOnly ? 'read-only' : 'not-answering'),
  );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
