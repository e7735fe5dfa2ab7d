import { startPgBouncer, type PgBouncer } from '../../scripts/support/pgbouncer.ts';

/**
 * The `pgbouncer` test project's global set-up: one transaction-pooling PgBouncer (stock settings,
 * 5 server connections) in front of the test database for the whole run. Test processes start
 * after this and inherit these variables: the harness (testDatabase.ts) then opens every
 * database through the pooler with PG_POOLER=transaction, and makes and drops its schemas on the
 * server itself.
 */
let bouncer: PgBouncer | undefined;

export async function setup() {
  const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 5, serverPort: Number(new URL(server).port || 5432) });
  process.env.TEST_PG_ADMIN_URL = server;
  process.env.TEST_DATABASE_URL = bouncer.through(server);
  process.env.TEST_PG_POOLER = 'transaction';
}

export async function teardown() {
  await bouncer?.stop();
}
