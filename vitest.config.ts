import { defineConfig } from 'vitest/config';
import { freePort } from './scripts/support/loopbackServices.ts';

// Pure tests (`unit`: no service, no process; `npm run test:unit`) run once, in seconds; tests
// that start servers, browsers or a throwaway PostgreSQL (`*.system.test.ts`) run once; everything
// that goes through a database runs once per dialect. Each project `extends` the root options:
// without it a project silently drops the timeouts below.
const e2e = ['test/**/*.e2e.test.ts'];
const system = ['test/**/*.system.test.ts'];
/**
 * What the `pgbouncer` project runs through a transaction-pooling PgBouncer: lists of every shape,
 * writes, idempotency races, exports, events and webhooks, keys (a list's one statement carrying
 * its key too), time zones, settings and a mixed load. (The whole PostgreSQL project passes through
 * it too: start a PgBouncer in transaction mode and run `--project postgres` with TEST_DATABASE_URL
 * pointing at it, TEST_PG_ADMIN_URL at the server and TEST_PG_POOLER=transaction, as the project
 * below sets them.)
 */
const throughPooler = [
  'test/db/poolerLoad.e2e.test.ts',
  'test/db/migrations.e2e.test.ts',
  'test/db/sessionSettings.e2e.test.ts',
  'test/db/timeZones.e2e.test.ts',
  'test/db/streamRowTexts.e2e.test.ts',
  'test/db/snapshotReader.e2e.test.ts',
  'test/db/unansweredStatements.e2e.test.ts',
  'test/db/statementAfterBegin.e2e.test.ts',
  'test/db/vacuumTable.e2e.test.ts',
  'test/lists/filtersAndSorting.e2e.test.ts',
  'test/lists/deepPages.e2e.test.ts',
  'test/lists/exactPages.property.e2e.test.ts',
  'test/lists/everyFilterShape.property.e2e.test.ts',
  'test/lists/rangedLists.e2e.test.ts',
  'test/lists/metadataSearch.e2e.test.ts',
  'test/lists/sql/entryOrderPage.e2e.test.ts',
  'test/lists/bigPages.e2e.test.ts',
  'test/representations/sparseFieldsets.e2e.test.ts',
  'test/exports/export.e2e.test.ts',
  'test/payments/paymentWrites.e2e.test.ts',
  'test/accounts/accountWrites.e2e.test.ts',
  'test/idempotency/idempotency.e2e.test.ts',
  'test/idempotency/keyedCreates.property.e2e.test.ts',
  'test/events/events.e2e.test.ts',
  'test/webhooks/delivery.e2e.test.ts',
  'test/auth/access.e2e.test.ts',
  'test/auth/knownKeys.e2e.test.ts',
  'test/lists/counters/listCounts.e2e.test.ts',
];
/** The test server itself, and the same database through the `pgbouncer` project's PgBouncer (a port of its own). */
const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const throughPgbouncer = Object.assign(new URL(server), { host: `127.0.0.1:${await freePort()}` }).toString();

export default defineConfig({
  // Inside the repository '@payments/client' is its TypeScript source (the `payments-source`
  // export condition); the packed client is the built JavaScript (test/client/package.system.test.ts).
  resolve: { conditions: ['payments-source'] },
  ssr: { resolve: { conditions: ['payments-source'] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files run side by side in this many processes. Vitest's default is one fewer than the
    // CPUs: on a 2-core CI machine one file at a time, though much of a file's time is spent waiting
    // (on PostgreSQL, a child process, a timer). Three on a busy 2-core machine pushed timing-bound
    // tests past their bounds (decisions 0032, 0091). TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    // A worker runs its files one after another in one module graph instead of re-importing the
    // app for each file: about a fifth of the suite's time was imports (decision 0091).
    isolate: false,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...e2e, ...system] } },
      { extends: true, test: { name: 'system', include: system } },
      { extends: true, test: { name: 'sqlite', include: e2e, env: { TEST_DB: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', include: e2e, env: { TEST_DB: 'postgres' } } },
      {
        extends: true,
        test: {
          name: 'pgbouncer',
          include: throughPooler,
          // This project's alone: the other projects keep reaching the server directly.
          // The random properties run in full on the server directly (the `postgres` project); through
          // the pooler, a third of their cases check the pooling of every statement shape they meet.
          env: {
            FILTER_PROPERTY_RUNS: '20',
            EXACT_PAGES_RUNS: '7',
            TEST_DB: 'postgres',
            TEST_PG_POOLER: 'transaction',
            TEST_DATABASE_URL: throughPgbouncer,
            TEST_PG_ADMIN_URL: server,
          },
          globalSetup: ['test/support/pgbouncerSetup.ts'],
        },
      },
    ],
  },
});
