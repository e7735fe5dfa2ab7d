import { execFile, spawn } from 'node:child_process';
import { foldTenant } from '../../src/lists/counters/foldChanges.ts';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { recountTenant } from '../../src/lists/counters/listCounts.ts';
import type { Db } from '../../src/db/database.ts';
import { createTestDatabase, type TestDatabase } from './testDatabase.ts';

/** What the seed tests check a database with: the CLI, a tenant's rows, and its counts beside a rebuild. */

const run = promisify(execFile);
export function cliEnv(database: TestDatabase, extra: Record<string, string> = {}) {
  return { ...process.env, ...database.env, LOG_LEVEL: 'silent', CARD_FINGERPRINT_SECRET: 'seed-test-secret', ...extra };
}

/** `cli seed …` on a database, to the end. */
export function cli(database: TestDatabase, ...args: string[]) {
  return run(process.execPath, ['src/cli/main.ts', 'seed', ...args], { env: cliEnv(database) });
}

/** `cli seed …` started slowly (a pause after every batch), to be stopped midway. */
export function startSlowSeed(database: TestDatabase, args: string[], pauseMs: number) {
  const child = spawn(process.execPath, ['src/cli/main.ts', 'seed', ...args], {
    env: cliEnv(database, { SEED_PAUSE_MS: String(pauseMs) }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal, stderr })),
  );
  return { child, exited };
}

export async function tenantId(db: Db, name: string): Promise<string> {
  return (await db.kysely.selectFrom('tenants').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
}

/** A tenant's maintained counts, bucket counts and metadata value counts next to what rebuilding them from its rows gives (the rebuild is rolled back). */
export async function countsVersusRebuild(db: Db, tenant: string) {
  const id = await tenantId(db, tenant);
  // The counts as kept once the API's changes waiting are folded (lists/counters/foldChanges.ts).
  await foldTenant(db, id);
  // Summed over the shards a counter's rows are spread over (PostgreSQL's writes pick one at random).
  const read = async (kysely: Db['kysely']) => {
    const counts = (
      await sql<object>`select list, account_id, status, currency, card_brand, sum(n) as n from list_counts where tenant_id = ${id}
        group by list, account_id, status, currency, card_brand having sum(n) <> 0`.execute(kysely)
    ).rows;
    const buckets = (
      await sql<object>`select sort_key, level, account_id, status, currency, card_brand, bucket, sum(n) as n from list_buckets where tenant_id = ${id}
        group by sort_key, level, account_id, status, currency, card_brand, bucket having sum(n) <> 0`.execute(kysely)
    ).rows;
    // Metadata value counts (migrations 0020, 0024: per status): the seed tallies them as it writes the entries.
    const values = (
      await sql<object>`select list, key, value, status, sum(n) as n from metadata_value_counts where tenant_id = ${id}
        group by list, key, value, status having sum(n) <> 0`.execute(kysely)
    ).rows;
    const key = (r: object) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, k === 'n' || k === 'bucket' || k === 'level' ? Number(v) : v]));
    return { counts: counts.map(key).sort(), buckets: buckets.map(key).sort(), values: values.map(key).sort() };
  };
  const kept = await read(db.kysely);
  let rebuilt: typeof kept | undefined;
  await db.kysely
    .transaction()
    .execute(async (trx) => {
      await recountTenant(trx, db.dialect, id);
      rebuilt = await read(trx);
      throw new Error('roll back');
    })
    .catch(() => {});
  return { kept, rebuilt: rebuilt! };
}

/** Every column of a tenant's accounts and payments but the tenant's id (it differs between databases). */
export async function rowsOf(db: Db, tenant: string) {
  const id = await tenantId(db, tenant);
  const accounts = await db.kysely.selectFrom('accounts').selectAll().where('tenant_id', '=', id).orderBy('id').execute();
  const payments = await db.kysely.selectFrom('payments').selectAll().where('tenant_id', '=', id).orderBy('id').execute();
  const strip = <T extends { tenant_id: string }>({ tenant_id: _, ...rest }: T) => rest;
  return { accounts: accounts.map(strip), payments: payments.map(strip) };
}

export async function totals(db: Db, tenant: string) {
  const id = await tenantId(db, tenant);
  const count = async (table: 'accounts' | 'payments') =>
    Number(
      (
        await db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenant_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { accounts: await count('accounts'), payments: await count('payments') };
}

/** A database to seed and a reference one to compare it with. */
export async function twoDatabases(): Promise<{ database: TestDatabase; reference: TestDatabase }> {
  return { database: await createTestDatabase(), reference: await createTestDatabase() };
}
