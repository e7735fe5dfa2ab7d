import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { pgbenchText, sqliteParameters, type CapturedCreate } from './writeStatements.ts';
import { median } from './median.ts';

const run = promisify(execFile);

/**
 * Transactions per second of `statements` replayed as one transaction each, with fresh unique
 * values every time. PostgreSQL: pgbench, `connections` clients, prepared statements, the
 * counter shard drawn at random per transaction. SQLite: one in-process connection (SQLite writes
 * one transaction at a time), with the service's pragmas.
 */
export async function floorRate(
  target: { dialect: 'sqlite' | 'postgres'; url: string },
  statements: CompiledQuery[],
  captured: CapturedCreate,
  seconds: number,
  connections: number,
): Promise<number> {
  if (target.dialect === 'sqlite') return sqliteLoop(target.url.replace(/^sqlite:(\/\/)?/, ''), statements, captured, seconds);
  const script = [
    '\\set u random(1, 1000000000000000)',
    `\\set shard random(0, 15)`,
    'begin;',
    ...statements.map((s) => `${pgbenchText(s, captured.unique)};`),
    'commit;',
  ].join('\n');
  const file = join(mkdtempSync(join(tmpdir(), 'write-floor-')), 'create.sql');
  writeFileSync(file, `${script}\n`);
  const url = new URL(target.url);
  const options = url.searchParams.get('options') ?? '';
  url.search = '';
  const { stdout } = await run('pgbench', ['-n', '-M', 'prepared', '-c', String(connections), '-j', '2', '-T', String(seconds), '-f', file, url.toString()], {
    env: { ...process.env, PGOPTIONS: options },
    maxBuffer: 1 << 30,
  });
  const tps = /tps = ([0-9.]+)/.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no rate: ${stdout}`);
  return Number(tps[1]);
}

function sqliteLoop(path: string, statements: CompiledQuery[], captured: CapturedCreate, seconds: number): number {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  const started = performance.now();
  const rate = replayCreates(db, statements, captured, seconds) / ((performance.now() - started) / 1000);
  db.close();
  return rate;
}

/** SQLite: `statements` replayed as one transaction each, fresh unique values every time, for `seconds`: how many ran. */
export function replayCreates(db: DatabaseSync, statements: CompiledQuery[], captured: CapturedCreate, seconds: number): number {
  const prepared = statements.map((s) => db.prepare(s.sql));
  let runs = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const suffix = `-${process.pid}-${Date.now()}-${runs}`;
    db.exec('begin immediate');
    statements.forEach((s, i) => prepared[i].run(...(sqliteParameters(s, captured.unique, suffix) as Array<string | number | null>)));
    db.exec('commit');
    runs++;
  }
  return runs;
}

/** SQLite: creates per CPU second of one in-process connection to `path` replaying `statements` for `seconds` (a loaded machine swings the wall-clock rate, not the CPU time). */
export function sqliteCpuRate(path: string, statements: CompiledQuery[], captured: CapturedCreate, seconds: number): number {
  const db = new DatabaseSync(path);
  for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'busy_timeout = 5000']) db.exec(`PRAGMA ${pragma}`);
  const cpu = process.cpuUsage();
  const runs = replayCreates(db, statements, captured, seconds);
  const used = process.cpuUsage(cpu);
  db.close();
  return runs / ((used.user + used.system) / 1e6);
}

/** The bench tenant (`cli seed --tenant bench`) and one of its active accounts, on the database at `url`. */
export async function benchTenantAndAccount(dialect: 'sqlite' | 'postgres', url: string): Promise<{ tenantId: string; account: { id: string; currency: string } }> {
  const tenantSql = `select id from tenants where name = 'bench'`;
  const accountSql = `select id, currency from accounts where tenant_id = $1 and status = 'active' order by id limit 1`;
  if (dialect === 'sqlite') {
    const db = new DatabaseSync(url.replace(/^sqlite:(\/\/)?/, ''), { readOnly: true });
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

/**
 * Two replays' rates over `rounds` rounds, which of them runs first swapping each round (a machine
 * whose load drifts favours neither): `[a's rates, b's rates]`, round by round.
 */
export async function alternatingRates(rounds: number, a: () => number | Promise<number>, b: () => number | Promise<number>): Promise<[number[], number[]]> {
  const rates: [number[], number[]] = [[], []];
  for (let round = 0; round < rounds; round++) {
    const both = [async () => rates[0].push(await a()), async () => rates[1].push(await b())];
    for (const replay of round % 2 ? both : both.reverse()) await replay();
  }
  return rates;
}

/** Prints `with`'s and `without`'s median rates (creates/s on `dialect`'s unit) and the median of their round-by-round ratios. */
export function printRatio(dialect: 'sqlite' | 'postgres', what: string, withIt: number[], without: number[]): void {
  const ratios = withIt.map((x, i) => x / without[i]);
  const unit = dialect === 'sqlite' ? 'creates per CPU second' : 'creates/s (pgbench, 4 clients)';
  console.log(`${dialect}: ${unit} with ${what} ${median(withIt).toFixed(0)}, without ${median(without).toFixed(0)}`);
  console.log(`${dialect}: with ÷ without ${median(ratios).toFixed(3)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
}
