import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

const run = promisify(execFile);

describe('the command line (npm run --silent cli -- …)', () => {
  let database: TestDatabase;
  const cli = (...args: string[]) => run(process.execPath, ['src/cli/main.ts', ...args], { env: { ...process.env, ...database.env, LOG_LEVEL: 'silent' } });
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('migrates idempotently', async () => {
    const { stderr } = await cli('migrate');
    expect(stderr).toContain('schema is up to date');
  });

  it('creates a tenant, refuses a duplicate, and mints keys printing only the key', async () => {
    const { stdout } = await cli('tenants', 'create', 'acme');
    expect(stdout.trim()).toMatch(/^ten_[0-9A-Z]{26}$/);
    await expect(cli('tenants', 'create', 'acme')).rejects.toMatchObject({ code: 2 });
    const key = await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read,write');
    expect(key.stdout).toMatch(/^apk_[A-Za-z0-9_-]{40}\n$/);
    await expect(cli('keys', 'create', '--tenant', 'nobody', '--scopes', 'read')).rejects.toMatchObject({ code: 2 });
    await expect(cli('keys', 'create', '--tenant', 'acme', '--scopes', 'admin')).rejects.toMatchObject({ code: 2 });
  });

  it('says how to run the CLI in its hints, and says so when it makes a read-only key by default', async () => {
    await expect(cli('keys', 'create', '--tenant', 'nosuch', '--scopes', 'read')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no tenant nosuch; create it with: npm run --silent cli -- tenants create nosuch'),
    });
    await cli('tenants', 'create', 'readers');
    const made = await cli('keys', 'create', '--tenant', 'readers');
    expect(made.stdout).toMatch(/^apk_[A-Za-z0-9_-]{40}\n$/);
    expect(made.stderr).toContain('made a read-only key (scopes: read); for one that writes too, add --scopes read,write');
    expect((await cli('keys', 'create', '--tenant', 'readers', '--scopes', 'read')).stderr).not.toContain('read-only');
  });

  it('reads the database without loading what it does not use: no HTTP stack, no TypeBox, no progress bar', async () => {
    const { stderr } = await run(process.execPath, ['--import', './test/support/loadedPackages.ts', 'src/cli/main.ts', 'tenants', 'list'], {
      env: { ...process.env, ...database.env, LOG_LEVEL: 'silent' },
    });
    const loaded = /loaded packages: (.*)/.exec(stderr)?.[1].split(' ') ?? [];
    expect(loaded).toContain('kysely');
    for (const unused of ['fastify', 'typebox', 'cli-progress', 'pino']) expect(loaded).not.toContain(unused);
  });

  it('seeds exactly N accounts and M payments, creating the tenant, deterministically', async () => {
    await cli('seed', '--tenant', 'seeded', '--accounts', '12', '--payments', '345', '--seed', '9');
    await cli('seed', '--tenant', 'seeded', '--accounts', '3', '--payments', '5', '--seed', '9');
    const kysely = database.db.kysely;
    const tenant = await kysely.selectFrom('tenants').selectAll().where('name', '=', 'seeded').executeTakeFirstOrThrow();
    const count = async (table: 'accounts' | 'payments') =>
      Number(
        (
          await kysely
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('tenant_id', '=', tenant.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('accounts')).toBe(15);
    expect(await count('payments')).toBe(350);
  });

  it('leaves PostgreSQL statistics of what it loaded, as a planner needs them at once (autovacuum may be off or late)', async () => {
    const { stderr } = await cli('seed', '--tenant', 'analyzed', '--accounts', '3', '--payments', '40', '--seed', '5');
    if (TEST_DIALECT !== 'postgres') return expect(stderr).not.toContain('vacuumed');
    expect(stderr).toMatch(/vacuumed and analyzed the loaded tables in [0-9.]+s/);
    const { rows } = await sql<{ tablename: string }>`select distinct tablename from pg_stats where schemaname = current_schema()`.execute(database.db.kysely);
    expect(rows.map((r) => r.tablename)).toEqual(expect.arrayContaining(['payments', 'accounts', 'list_counts', 'list_buckets']));
  });

  it('gives the same rows for the same seed and starting state', async () => {
    const other = await createTestDatabase();
    try {
      const again = (...args: string[]) => run(process.execPath, ['src/cli/main.ts', ...args], { env: { ...process.env, ...other.env, LOG_LEVEL: 'silent' } });
      await cli('seed', '--tenant', 'twin', '--accounts', '4', '--payments', '50', '--seed', '3');
      await again('seed', '--tenant', 'twin', '--accounts', '4', '--payments', '50', '--seed', '3');
      const rowsOf = (db: TestDatabase) =>
        db.db.kysely
          .selectFrom('payments')
          .innerJoin('tenants', 'tenants.id', 'payments.tenant_id')
          .where('tenants.name', '=', 'twin')
          .select(['payments.id', 'account_id', 'amount', 'status', 'card_brand', 'payments.created_at', 'reference'])
          .orderBy('payments.id')
          .execute();
      const first = await rowsOf(database);
      expect(first).toHaveLength(50);
      expect(await rowsOf(other)).toEqual(first);
      expect(new Set(first.map((p) => p.status)).size).toBeGreaterThan(2);
    } finally {
      await other.drop();
    }
  });

  it('says so in one line when the seed runs out of memory (SEED_HEAP_MB), and commits nothing of a load in one transaction', async () => {
    const failed = run(process.execPath, ['src/cli/main.ts', 'seed', '--tenant', 'starved', '--accounts', '3000', '--payments', '30000', '--seed', '1'], {
      env: { ...process.env, ...database.env, LOG_LEVEL: 'silent', SEED_HEAP_MB: '16' },
    });
    const error = await failed.then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(error?.code).toBe(70);
    expect(error?.stderr).toMatch(/^error: the seed ran out of memory \(its worker's heap is limited to 16 MB: SEED_HEAP_MB\) while .*rolled back/m);
    const kysely = database.db.kysely;
    const starved = await kysely.selectFrom('tenants').select('id').where('name', '=', 'starved').executeTakeFirst();
    const payments = await kysely
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('tenant_id', '=', starved?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(Number(payments.n)).toBe(0);
  }, 120_000);

  it('rejects bad flags with a usage error', async () => {
    await expect(cli('seed', '--tenant', 'x', '--accounts', '-1')).rejects.toMatchObject({ code: 2 });
    await expect(cli('bogus')).rejects.toMatchObject({ code: 2 });
  });
});
