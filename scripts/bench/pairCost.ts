/**
 * What the pairs' bucket rows (migration 0031, counts/countedSlices.ts) cost a create's write
 * statements: `node scripts/bench/pairCost.ts <sqlite|postgres> <database url> [rounds] [seconds]`
 * on a seeded database (tenant `bench`, as `cli seed --tenant bench` makes it). The statements of
 * one create are captured (writeStatements.ts) and replayed with and without the pairs' rows,
 * alternating round by round: SQLite on one in-process connection, counted per CPU second of
 * this process (a loaded machine swings its wall-clock rate round to round, not its CPU time),
 * PostgreSQL by pgbench with 4 clients (wall clock). Each replay creates payments in the tenant.
 */
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { CompiledQuery } from 'kysely';
import { captureCreate, type CapturedCreate } from './writeStatements.ts';
import { floorRate, replayCreates } from './writeFloors.ts';
import { median } from './median.ts';

const [dialect, url, roundsText = '10', secondsText = '2'] = process.argv.slice(2) as ['sqlite' | 'postgres', string, string?, string?];
const rounds = Number(roundsText);
const seconds = Number(secondsText);
const sqlitePath = url.replace(/^sqlite:(\/\/)?/, '');

/** The bench tenant and one of its active accounts. */
async function tenantAndAccount(): Promise<{ tenantId: string; account: { id: string; currency: string } }> {
  const tenantSql = `select id from tenants where name = 'bench'`;
  const accountSql = `select id, currency from accounts where tenant_id = $1 and status = 'active' order by id limit 1`;
  if (dialect === 'sqlite') {
    const db = new DatabaseSync(sqlitePath, { readOnly: true });
    const tenant = db.prepare(tenantSql).get() as { id: string };
    const account = db.prepare(accountSql.replace('$1', '?')).get(tenant.id) as { id: string; currency: string };
    db.close();
    return { tenantId: tenant.id, account };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tenantId = (await client.query(tenantSql)).rows[0].id as string;
    return { tenantId, account: (await client.query(accountSql, [tenantId])).rows[0] };
  } finally {
    await client.end();
  }
}

/** SQLite: creates per CPU second of one in-process connection replaying `statements`. */
function sqliteCpuRate(statements: CompiledQuery[], captured: CapturedCreate): number {
  const db = new DatabaseSync(sqlitePath);
  for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'busy_timeout = 5000']) db.exec(`PRAGMA ${pragma}`);
  const cpu = process.cpuUsage();
  const runs = replayCreates(db, statements, captured, seconds);
  const used = process.cpuUsage(cpu);
  db.close();
  return runs / ((used.user + used.system) / 1e6);
}

const { tenantId, account } = await tenantAndAccount();
const captured = await captureCreate(dialect, url, tenantId, account);
const rate = (statements: CompiledQuery[]) =>
  dialect === 'sqlite' ? Promise.resolve(sqliteCpuRate(statements, captured)) : floorRate({ dialect, url }, statements, captured, seconds, 4);
const withPairs: number[] = [];
const without: number[] = [];
for (let round = 0; round < rounds; round++) {
  const both = [async () => withPairs.push(await rate(captured.statements)), async () => without.push(await rate(captured.withoutPairs))];
  for (const replay of round % 2 ? both : both.reverse()) await replay();
}
const ratios = withPairs.map((x, i) => x / without[i]);
const unit = dialect === 'sqlite' ? 'creates per CPU second' : 'creates/s (pgbench, 4 clients)';
console.log(`${dialect}: bucket rows per create ${captured.rows.now.buckets}, without the pairs ${captured.rows.withoutPairs.buckets}`);
console.log(`${dialect}: ${unit} with the pairs ${median(withPairs).toFixed(0)}, without ${median(without).toFixed(0)}`);
console.log(`${dialect}: with ÷ without ${median(ratios).toFixed(3)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
