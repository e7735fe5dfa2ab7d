import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { sessionSettings } from '../../src/db/sessionSettings.ts';
import { BENCH_TENANT, type Dataset } from './datasets.ts';

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
      at('src/listing/fetchListPage.ts'),
      at('src/http/parseQueryString.ts'),
      at('src/listquery/parseListQuery.ts'),
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
    backendCpuMs() {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    end: () => client.end(),
  };
}
