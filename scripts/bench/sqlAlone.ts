import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import type { CompiledQuery } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { BENCH_TENANT, type Dataset } from './datasets.ts';
import { offsetPageQuery } from '../../src/lists/sql/listStatements.ts';

const run = promisify(execFile);

/** A value written as an SQL literal (the statement's parameters are ids and whole numbers). */
function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return `'${String(value).replaceAll("'", "''")}'`;
}

/** The statement with its parameters written in, for a tool that runs SQL text. */
function inlined(compiled: CompiledQuery, dialect: 'sqlite' | 'postgres'): string {
  let i = 0;
  return dialect === 'postgres'
    ? compiled.sql.replace(/\$(\d+)/g, (_, n) => literal(compiled.parameters[Number(n) - 1]))
    : compiled.sql.replace(/\?/g, () => literal(compiled.parameters[i++]));
}

/**
 * "The SQL alone": the very statement the service runs for page 1 of all payments at `perPage`
 * (total and rows together), run as fast as the database answers it, with no HTTP and no
 * rendering. PostgreSQL: pgbench with `connections` clients (prepared statements, two threads),
 * the rows read by pgbench's C client. SQLite: one in-process connection in a loop, rows read
 * into JavaScript (what the service's driver does too). Statements per second.
 */
export async function sqlAloneRate(ds: Dataset, perPage: number, seconds: number, connections: number): Promise<number> {
  const db = openDatabase(ds.url);
  let statement: string;
  try {
    const tenant = await db.kysely.selectFrom('tenants').select('id').where('name', '=', BENCH_TENANT).executeTakeFirstOrThrow();
    const compiled = offsetPageQuery(db.kysely, db.dialect, 'payments', { tenantId: tenant.id }, { conditions: [], sort: [{ column: 'created_at', direction: 'desc' }] }, {
      page: 1,
      perPage,
      offset: 0,
    });
    statement = inlined(compiled, db.dialect);
  } finally {
    await db.close();
  }
  if (ds.dialect === 'sqlite') {
    const sqlite = new DatabaseSync(ds.url.slice('sqlite:'.length), { readOnly: true });
    const prepared = sqlite.prepare(statement);
    const until = performance.now() + seconds * 1000;
    let runs = 0;
    const started = performance.now();
    while (performance.now() < until) {
      prepared.all();
      runs++;
    }
    const rate = runs / ((performance.now() - started) / 1000);
    sqlite.close();
    return rate;
  }
  const file = join(mkdtempSync(join(tmpdir(), 'sql-alone-')), 'page.sql');
  writeFileSync(file, `${statement};\n`);
  const url = new URL(ds.url);
  const options = url.searchParams.get('options') ?? '';
  url.search = '';
  const { stdout } = await run('pgbench', ['-n', '-M', 'prepared', '-c', String(connections), '-j', '2', '-T', String(seconds), '-f', file, url.toString()], {
    env: { ...process.env, PGOPTIONS: `${options} -c plan_cache_mode=force_generic_plan -c jit=off` },
  });
  const tps = /tps = ([0-9.]+)/.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no rate: ${stdout}`);
  return Number(tps[1]);
}
