import { sql } from 'kysely';
import { DEFAULT_PING_TIMEOUT_MS, type Db } from './database.ts';
import { NoWritableHost } from './databaseErrors.ts';
import { READ_ONLY_QUESTION } from './readOnlyQuestion.ts';

export type Readiness = 'ready' | 'not-answering' | 'read-only';

/**
 * Whether the database can serve this instance now: it answers a query within `timeoutMs`, and
 * (PostgreSQL) takes writes. A primary that came back as a standby after a failover
 * (`pg_is_in_recovery()`), or a database set read-only (`transaction_read_only`, from
 * `default_transaction_read_only`), answers every read and refuses every write: a load balancer
 * should send clients to an instance whose database takes them. With several hosts in
 * DATABASE_URL, a connection is only ever made to one that takes writes: none taking them is
 * read-only when each answered, else not answering.
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
