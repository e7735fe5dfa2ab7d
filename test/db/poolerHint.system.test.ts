import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgBouncer, type PgBouncer } from '../../scripts/support/pgbouncer.ts';
import { openDatabase } from '../../src/db/database.ts';
import { poolerHint } from '../../src/db/databaseErrors.ts';
import { withFlags } from '../../src/db/driverFlags.ts';

const SERVER = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe('named statements behind a transaction pooler (PG_POOLER not set to transaction)', () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 3 });
  });
  afterAll(() => bouncer.stop());

  it('fail as 26000/42P05, and the log line says to set PG_POOLER=transaction', async () => {
    // `session` keeps named statements and sends no startup options: what PgBouncer accepts, then breaks.
    const db = openDatabase(bouncer.through(SERVER), { pooler: 'session', poolMax: 6 });
    const failures: unknown[] = [];
    try {
      for (let round = 0; round < 20 && failures.length === 0; round++) {
        const runs = Array.from({ length: 12 }, (_, i) =>
          db.kysely.executeQuery(withFlags(CompiledQuery.raw(`select $1::int + ${round % 3} as n`, [i]), { prepared: true })).catch((error: unknown) => {
            failures.push(error);
          }),
        );
        await Promise.all(runs);
      }
    } finally {
      await db.close();
    }
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) expect(poolerHint(failure)).toMatch(/PG_POOLER=transaction/);
    expect(poolerHint(new Error('division by zero'))).toBeUndefined();
  });
});
