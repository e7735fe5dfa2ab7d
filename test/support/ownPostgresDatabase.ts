import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_PG_URL } from './testDatabase.ts';

export interface OwnPostgresDatabase {
  /** Its name, also the name of the role that owns it. */
  name: string;
  /** Its URL as its owner (not a superuser: connection limits apply to it). */
  url: string;
  /** Its URL as the shared server's superuser (to set what only a superuser may, such as deadlock_timeout). */
  superuserUrl: string;
  /** Runs SQL as the shared server's superuser (ALTER DATABASE, pg_terminate_backend). */
  admin(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

/**
 * A database of its own on the shared test server, owned by a login role of its own: for tests
 * that set database- or role-wide settings (read-only, connection limits) that must not reach
 * any other test. Both are dropped afterwards; the server itself is never reconfigured.
 */
export async function createOwnPostgresDatabase(prefix: string): Promise<OwnPostgresDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`create role ${name} login`);
  await admin.query(`create database ${name} owner ${name}`);
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  const superuserUrl = url.toString();
  url.username = name;
  return {
    name,
    url: url.toString(),
    superuserUrl,
    admin: (text, values) => admin.query(text, values),
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`drop role if exists ${name}`);
      await admin.end();
    },
  };
}
