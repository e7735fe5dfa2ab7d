import type { TestProject } from 'vitest/node';
import { startPgBouncer, type PgBouncer } from '../../scripts/support/pgbouncer.ts';

/**
 * The `pgbouncer` test project's global set-up: one transaction-pooling PgBouncer (stock settings,
 * 5 server connections) in front of the test database for the whole run, on the port its project's
 * TEST_DATABASE_URL names (vitest.config.ts). Only that project's tests see that URL (and
 * TEST_PG_POOLER=transaction): the harness (testDatabase.ts) then opens every database through the
 * pooler, and makes and drops its schemas on the server itself (TEST_PG_ADMIN_URL).
 */
let bouncer: PgBouncer | undefined;

export async function setup(project: TestProject) {
  const { TEST_DATABASE_URL: through, TEST_PG_ADMIN_URL: server } = project.config.env as Record<string, string>;
  bouncer = await startPgBouncer({
    poolMode: 'transaction',
    poolSize: 5,
    port: Number(new URL(through).port),
    serverPort: Number(new URL(server).port || 5432),
  });
}

export async function teardown() {
  await bouncer?.stop();
}
