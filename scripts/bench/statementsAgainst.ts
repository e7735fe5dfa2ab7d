import { resolve } from 'node:path';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { driverFlagsOf } from '../../src/db/driverFlags.ts';
import { sessionSettings } from '../../src/db/sessionSettings.ts';
import { BENCH_TENANT, type Dataset } from './datasets.ts';
import { median } from './median.ts';
import { processSeconds } from './writes.ts';

/**
 * What filtersAgainst.ts' statement comparison runs on: each build's page-1 statement of a list
 * (its own query parser and offsetPageQuery, loaded from its checkout), and a connection with
 * the service's session settings whose backend's CPU time can be read.
 */
export async function pageQueriesOf(ds: Dataset, beforeDir: string) {
  const admin = new pg.Client({ connectionString: ds.url });
  await admin.connect();
  const tenantId = (await admin.query('select id from tenants where name = $1', [BENCH_TENANT])).rows[0].id as string;
  await admin.end();
  // A Kysely that only compiles (PostgreSQL's SQL); nothing runs through it.
  const db = new Kysely<never>({ dialect: new PostgresDialect({ pool: {} as never }) });
  const buildOf = async (root: string) => {
    const at = (path: string) => import(resolve(root, path));
    const [{ offsetPageQuery }, { parseQueryString }, { parseListQuery }, { paymentListSpec }] = await Promise.all([
      at('src/lists/runListPage.ts'),
      at('src/http/parseQueryString.ts'),
      at('src/lists/request/parseListQuery.ts'),
      at('src/payments/paymentListSpec.ts'),
    ]);
    return (query: string) =>
      offsetPageQuery(db, 'postgres', 'payments', { tenantId }, parseListQuery(paymentListSpec, parseQueryString(query)), { page: 1, perPage: 10, offset: 0 });
  };
  return { ours: await buildOf(resolve('.')), before: await buildOf(beforeDir) };
}

/** A connection with the service's session settings (named statements kept, generic plans); the database server must run on this machine. */
export async function backendClient(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const [name, value] of sessionSettings({ namedStatements: true })) await client.query('select set_config($1, $2, false)', [name, value]);
  const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid as number;
  return {
    query: (config: { name?: string; text: string; values: unknown[] }) => client.query(config),
    /** utime + stime of the backend, in ms (/proc counts 10 ms ticks). */
    backendCpuMs: () => processSeconds(pid) * 1000,
    end: () => client.end(),
  };
}

const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '—');

/** One build's page-1 statement of a list, as its offsetPageQuery builds it. */
type PageQueryOf = (query: string) => CompiledQuery;

export interface StatementCost {
  name: string;
  /** Per call, median of the rounds: wall ms (one client, one after the other) and the backend's CPU ms. */
  before: { wallMs: number; cpuMs: number; named: boolean };
  ours: { wallMs: number; cpuMs: number; named: boolean };
}

/**
 * PostgreSQL: page 1's one statement of each list as each build sends it (named when flagged
 * prepared, as the service's pool sends it; an older build marked it by a comment before its
 * text), `calls` times one after the other on one connection
 * with the service's session settings, alternated build by build for `rounds` rounds; the
 * backend's CPU time from /proc (the server on this machine), which the machine's load hardly
 * moves: what a statement costs the database, planning included when it is planned per call.
 */
export async function measureStatementsAgainst(
  connect: () => Promise<{ query(config: { name?: string; text: string; values: unknown[] }): Promise<unknown>; backendCpuMs(): number; end(): Promise<void> }>,
  pages: { ours: PageQueryOf; before: PageQueryOf },
  lists: Array<{ name: string; query: string }>,
  options: { calls: number; rounds: number },
): Promise<StatementCost[]> {
  const client = await connect();
  try {
    const costs: StatementCost[] = [];
    for (const [i, list] of lists.entries()) {
      const runs = { ours: { wall: [] as number[], cpu: [] as number[] }, before: { wall: [] as number[], cpu: [] as number[] } };
      const named = { ours: false, before: false };
      const run = async (who: 'ours' | 'before', keep: boolean) => {
        const compiled = pages[who](list.query);
        const { sql, parameters } = compiled;
        named[who] = driverFlagsOf(compiled).prepared === true || sql.startsWith('/* prepared */');
        const config = { ...(named[who] ? { name: `against_${who}_${i}` } : {}), text: sql, values: [...parameters] };
        const cpu = client.backendCpuMs();
        const started = performance.now();
        for (let n = 0; n < options.calls; n++) await client.query(config);
        if (!keep) return;
        runs[who].wall.push((performance.now() - started) / options.calls);
        runs[who].cpu.push((client.backendCpuMs() - cpu) / options.calls);
      };
      await run('ours', false);
      await run('before', false);
      for (let round = 0; round < options.rounds; round++) {
        for (const who of round % 2 === 0 ? (['before', 'ours'] as const) : (['ours', 'before'] as const)) await run(who, true);
      }
      costs.push({
        name: list.name,
        before: { wallMs: median(runs.before.wall), cpuMs: median(runs.before.cpu), named: named.before },
        ours: { wallMs: median(runs.ours.wall), cpuMs: median(runs.ours.cpu), named: named.ours },
      });
    }
    return costs;
  } finally {
    await client.end();
  }
}

export function printStatementsAgainst(costs: StatementCost[], options: { calls: number; rounds: number }): void {
  const how = (c: { named: boolean }) => (c.named ? 'named' : 'unnamed');
  console.log(
    `\nPage 1's one statement alone (no key check), each build's, ${options.calls} calls one after the other per round, ${options.rounds} rounds alternated: per call, median of the rounds. Backend CPU from /proc (10 ms ticks: ±${fmt(10 / options.calls, 3)} ms).\n`,
  );
  console.log('| list | sent before · after | wall ms before · after | backend CPU ms before · after |');
  console.log('|---|---|---|---|');
  for (const c of costs) {
    console.log(`| ${c.name} | ${how(c.before)} · ${how(c.ours)} | ${fmt(c.before.wallMs, 3)} · ${fmt(c.ours.wallMs, 3)} | ${fmt(c.before.cpuMs, 3)} · ${fmt(c.ours.cpuMs, 3)} |`);
  }
}
