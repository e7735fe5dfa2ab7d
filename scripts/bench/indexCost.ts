/**
 * What one index costs a create's write statements:
 * `node scripts/bench/indexCost.ts <sqlite|postgres> <database url> <index> [rounds] [seconds]` on a
 * seeded database (tenant `bench`, as `cli seed --tenant bench` makes it). The statements of one
 * create (writeStatements.ts: a payment with one metadata entry) are replayed with the index and
 * without it, alternating round by round. SQLite: a copy of the file without the index beside it,
 * one in-process connection each, counted per CPU second (pairCost.ts); PostgreSQL: the index
 * dropped and rebuilt between rounds (its definition read from the catalog), pgbench with 4
 * clients (wall clock). Each replay creates payments in the tenant (and in the copy).
 */
import { copyFileSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { captureCreate } from './writeStatements.ts';
import { alternatingRates, benchTenantAndAccount, floorRate, printRatio, sqliteCpuRate } from './writeFloors.ts';

const [dialect, url, index, roundsText = '8', secondsText = '2'] = process.argv.slice(2) as ['sqlite' | 'postgres', string, string, string?, string?];
if (!index) throw new Error('usage: indexCost.ts <sqlite|postgres> <database url> <index> [rounds] [seconds]');
const rounds = Number(roundsText);
const seconds = Number(secondsText);

const { tenantId, account } = await benchTenantAndAccount(dialect, url);
const captured = await captureCreate(dialect, url, tenantId, account);
let rates: [number[], number[]];

if (dialect === 'sqlite') {
  const path = url.replace(/^sqlite:(\/\/)?/, '');
  const copy = `${path}.without-${index}`;
  new DatabaseSync(path).exec('PRAGMA wal_checkpoint(TRUNCATE)');
  copyFileSync(path, copy);
  const db = new DatabaseSync(copy);
  db.exec(`drop index ${index}`);
  db.close();
  try {
    rates = await alternatingRates(
      rounds,
      () => sqliteCpuRate(path, captured.statements, captured, seconds),
      () => sqliteCpuRate(copy, captured.statements, captured, seconds),
    );
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  }
} else {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const definition = (await client.query('select indexdef from pg_indexes where indexname = $1 and schemaname = current_schema()', [index])).rows[0]?.indexdef;
  if (!definition) throw new Error(`no index ${index}`);
  try {
    rates = await alternatingRates(
      rounds,
      () => floorRate({ dialect, url }, captured.statements, captured, seconds, 4),
      async () => {
        await client.query(`drop index ${index}`);
        try {
          return await floorRate({ dialect, url }, captured.statements, captured, seconds, 4);
        } finally {
          await client.query(definition);
        }
      },
    );
  } finally {
    await client.end();
  }
}
printRatio(dialect, index, ...rates);
