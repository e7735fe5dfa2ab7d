// Runs once (system project), on a database of its own on the shared PostgreSQL: deadlocks and
// serialization failures provoked for real between two sessions.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { databaseProblem } from '../../src/db/databaseErrors.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { inWriteTransaction, WRITE_ATTEMPTS, type Write } from '../../src/db/writeTransaction.ts';
import { createOwnPostgresDatabase, type OwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';
import { seed } from '../support/seedHelpers.ts';

describe('a write transaction that PostgreSQL rolls back over a concurrent one', () => {
  let own: OwnPostgresDatabase;
  let db: Db;
  let other: pg.Client;
  let a: string;
  let b: string;

  beforeAll(async () => {
    own = await createOwnPostgresDatabase('t_conflicts');
    // This database's sessions find a deadlock in 100 ms; `other` waits 10 s before it looks, so
    // the write under test is always the one PostgreSQL picks to roll back.
    await own.admin(`alter database ${own.name} set deadlock_timeout = '100ms'`);
    db = openDatabase(own.url, { poolMax: 2 });
    await migrateToLatest(db.kysely, db.dialect);
    await seed(db, 'conflicts', 2, 0);
    [a, b] = (await db.kysely.selectFrom('accounts').select('id').orderBy('id').execute()).map((r) => r.id);
    other = new pg.Client({ connectionString: own.superuserUrl });
    await other.connect();
    await other.query(`set deadlock_timeout = '10s'`);
  });
  afterAll(async () => {
    await other?.end();
    await db?.close();
    await own?.drop();
  });

  const touch = (write: Write, id: string) => sql`update accounts set name = name where id = ${id}`.execute(write.trx);

  /** Has `other` take b and then wait for a, which `write` holds: `write` taking b then deadlocks. `done` when `other` has committed. */
  async function deadlock(): Promise<{ done: Promise<unknown> }> {
    await other.query('begin');
    await other.query('update accounts set name = name where id = $1', [b]);
    const otherDone = other.query('update accounts set name = name where id = $1', [a]).then(() => other.query('commit'));
    // Only a superuser sees another role's wait events.
    for (let tries = 0; tries < 100; tries++) {
      const { rows } = await own.admin(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = $1`, [own.name]);
      if (rows.length > 0) break;
      await new Promise((resume) => setTimeout(resume, 20));
    }
    return { done: otherDone };
  }

  it('runs again from the start after a deadlock (40P01), and commits', async () => {
    let runs = 0;
    let otherDone: Promise<unknown> | undefined;
    const result = await inWriteTransaction(db, async (write) => {
      runs++;
      await touch(write, a);
      if (runs === 1) otherDone = (await deadlock()).done;
      await touch(write, b);
      return 'committed';
    });
    await otherDone;
    expect(result).toBe('committed');
    expect(runs).toBe(2);
  });

  it('runs again after a serialization failure (40001), and commits', async () => {
    let runs = 0;
    const result = await inWriteTransaction(db, async (write) => {
      runs++;
      await sql`set transaction isolation level repeatable read`.execute(write.trx);
      await sql`select name from accounts where id = ${a}`.execute(write.trx);
      if (runs === 1) await other.query(`update accounts set name = 'changed meanwhile' where id = $1`, [a]);
      await touch(write, a);
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(runs).toBe(2);
  });

  it(`gives up after ${WRITE_ATTEMPTS} runs with an error that is a 503 with Retry-After`, async () => {
    let runs = 0;
    const others: Promise<unknown>[] = [];
    const failure = await inWriteTransaction(db, async (write) => {
      runs++;
      await touch(write, a);
      others.push((await deadlock()).done);
      await touch(write, b);
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await Promise.all(others);
    expect(runs).toBe(WRITE_ATTEMPTS);
    expect(failure).toMatchObject({ code: '40P01' });
    const problem = databaseProblem(failure);
    expect(problem?.status).toBe(503);
    expect(problem?.headers['retry-after']).toMatch(/^\d+$/);
  });
});
