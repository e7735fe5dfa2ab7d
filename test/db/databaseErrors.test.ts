import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createServer, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseBusyProblem, databaseProblem, isDatabaseUnavailable } from '../../src/db/databaseErrors.ts';
describe('database errors that mean "busy, retry" become 503 problems; others are not claimed', () => {
  it('SQLite: a write blocked by another writer past the busy timeout (a real SQLITE_BUSY)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'busy-'));
    try {
      const file = join(dir, 'db.sqlite');
      const holder = new DatabaseSync(file);
      holder.exec('create table t (x integer)');
      holder.exec('begin immediate');
      const other = new DatabaseSync(file, { timeout: 10 });
      let error: unknown;
      try {
        other.exec('insert into t values (1)');
      } catch (caught) {
        error = caught;
      }
      holder.exec('rollback');
      other.close();
      holder.close();
      const problem = databaseBusyProblem(error);
      expect(problem?.status).toBe(503);
      expect(problem?.headers['retry-after']).toMatch(/^\d+$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SQLite: busy by an extended code (a snapshot another process wrote past: SQLITE_BUSY_SNAPSHOT)', () => {
    expect(databaseBusyProblem(Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 517 }))).toMatchObject({ status: 503 });
    expect(databaseBusyProblem(Object.assign(new Error('database table is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 262 }))).toMatchObject({
      status: 503,
    });
  });

  it('leaves other errors alone (they stay 500s, or another mapping’s business)', () => {
    expect(databaseBusyProblem(new Error('syntax error'))).toBeUndefined();
    expect(databaseBusyProblem(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
    expect(databaseBusyProblem(Object.assign(new Error('constraint'), { code: 'ERR_SQLITE_ERROR', errcode: 19 }))).toBeUndefined();
    expect(databaseBusyProblem(Object.assign(new Error('unique'), { code: 'ERR_SQLITE_ERROR', errcode: 2067 }))).toBeUndefined();
    expect(databaseBusyProblem(undefined)).toBeUndefined();
  });
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

function sqlError(code: string, message: string) {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  return error;
}

describe('which errors mean "the database is unavailable" (503, not 500)', () => {
  // A port that accepts TCP and then says nothing: a server that hangs.
  const sockets = new Set<import('node:net').Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((done) => silent.close(done));
  });

  it('a refused connection', async () => {
    const closed = createServer();
    const port = await listen(closed);
    await new Promise((done) => closed.close(done));
    const error = await failureOf(new pg.Pool({ connectionString: `postgres://x@127.0.0.1:${port}/x` }).query('select 1'));
    expect((error as { code: string }).code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('a connection that times out, and a pool that cannot hand out a client in time', async () => {
    const port = await listen(silent);
    const pool = new pg.Pool({ connectionString: `postgres://x@127.0.0.1:${port}/x`, connectionTimeoutMillis: 200, max: 1 });
    const first = failureOf(pool.query('select 1'));
    const queued = failureOf(pool.query('select 1'));
    expect(isDatabaseUnavailable(await first)).toBe(true);
    expect(String(await first)).toMatch(/timeout/);
    expect(isDatabaseUnavailable(await queued)).toBe(true);
    await pool.end();
  });

  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['08006', 'connection failure'],
    ['08001', 'could not connect'],
  ])('SQLSTATE %s', (code, message) => {
    expect(isDatabaseUnavailable(sqlError(code, message))).toBe(true);
  });

  it('a lost connection reported by message only, or wrapped as a cause', () => {
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('query failed', { cause: Object.assign(new Error('read'), { code: 'ECONNRESET' }) }))).toBe(true);
  });

  it.each([
    ['42601', 'syntax error at or near "selec"'],
    ['23505', 'duplicate key value violates unique constraint'],
    ['40001', 'could not serialize access'],
  ])('but not SQLSTATE %s (a bug or a query problem)', (code, message) => {
    expect(isDatabaseUnavailable(sqlError(code, message))).toBe(false);
  });

  it('nor ordinary errors', () => {
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});

describe('databaseProblem: the one mapping toProblem uses', () => {
  it('answers busy as busy, unavailable as unavailable, and claims nothing else', () => {
    expect(databaseProblem(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))?.type).toMatch(/database-timeout$/);
    const down = databaseProblem(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(down?.status).toBe(503);
    expect(down?.headers['retry-after']).toMatch(/^\d+$/);
    expect(databaseProblem(new TypeError('a bug'))).toBeUndefined();
  });

  it.each([
    ['53300', 'sorry, too many clients already'],
    ['53400', 'configuration limit exceeded'],
    ['55P03', 'canceling statement due to lock timeout'],
    ['40001', 'could not serialize access due to concurrent update'],
    ['40P01', 'deadlock detected'],
  ])('answers SQLSTATE %s as busy (503 database-busy with Retry-After)', (code, message) => {
    const problem = databaseProblem(sqlError(code, message));
    expect(problem?.type).toMatch(/database-busy$/);
    expect(problem?.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('answers a write refused as read-only (25006) as unavailable, saying so', () => {
    const problem = databaseProblem(sqlError('25006', 'cannot execute INSERT in a read-only transaction'));
    expect(problem?.type).toMatch(/\/unavailable$/);
    expect(problem?.detail).toMatch(/read-only/);
    expect(problem?.headers['retry-after']).toMatch(/^\d+$/);
  });
});
