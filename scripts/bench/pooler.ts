import { startPgBouncer } from '../support/pgbouncer.ts';
import type { Dataset } from './datasets.ts';
import { getJson, hammer, type Measured } from './scenarios.ts';
import { startServer } from './server.ts';

/** How the service reaches PostgreSQL in each column. */
const ROUTES = [
  { name: 'direct, named statements', pooler: 'none', throughBouncer: false },
  { name: 'direct, PG_POOLER=transaction', pooler: 'transaction', throughBouncer: false },
  { name: 'PgBouncer (transaction), PG_POOLER=transaction', pooler: 'transaction', throughBouncer: true },
] as const;

export interface PoolerResult {
  payments: number;
  routes: string[];
  /** Per case, one measurement per route, in ROUTES order. */
  cases: Array<{ name: string; measured: Measured[] }>;
}

/**
 * The same list cases served three ways, back to back, in one run: directly with named prepared
 * statements (the default); directly with what a transaction pooler needs (no named statements,
 * the settings sent with each statement), which isolates what unnamed statements cost; and through
 * a transaction-pooling PgBouncer (Debian's, stock settings, as many server connections as the
 * service's pool) with the same.
 */
export async function measureThroughPooler(ds: Dataset, shape: { seconds: number; connections: number; log: (line: string) => void }): Promise<PoolerResult> {
  const bouncer = await startPgBouncer({ poolMode: 'transaction', poolSize: 10 });
  const servers = [];
  try {
    for (const route of ROUTES) {
      const url = route.throughBouncer ? bouncer.through(ds.url) : ds.url;
      servers.push(await startServer(url, { env: { PG_POOLER: route.pooler } }));
    }
    const base = `${servers[0].origin}/v3`;
    const first = await getJson(`${base}/payments?per_page=10`, ds.key);
    const deep = Math.max(2, Math.floor(first.meta.last_page * 0.9));
    const account = (await getJson(`${base}/accounts?per_page=1`, ds.key)).data[0].id as string;
    const payment = first.data[0].id as string;
    const paths: Record<string, string> = {
      'page 1': '/v3/payments?per_page=10',
      'page at 90% depth': `/v3/payments?per_page=10&page=${deep}`,
      'filter[status]=failed&sort=-amount, 90% depth': `/v3/payments?filter[status]=failed&sort=-amount&per_page=10&page=${Math.max(1, Math.floor(deep / 20))}`,
      'one account’s payments': `/v3/accounts/${account}/payments`,
      'one payment': `/v3/payments/${payment}`,
      'per_page=1000': '/v3/payments?per_page=1000',
    };
    const cases: PoolerResult['cases'] = [];
    for (const [name, path] of Object.entries(paths)) {
      const measured: Measured[] = [];
      for (const [i, server] of servers.entries()) {
        shape.log(`  pooler ${ds.payments}: ${name}, ${ROUTES[i].name}`);
        measured.push(await hammer(`${server.origin}${path}`, ds.key, shape.seconds, shape.connections));
      }
      cases.push({ name, measured });
    }
    return { payments: ds.payments, routes: ROUTES.map((r) => r.name), cases };
  } finally {
    for (const server of servers) await server.stop();
    await bouncer.stop();
  }
}

const fmt = (x: number, digits = 0) => x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function printPooler(result: PoolerResult): void {
  console.log(`\n### PostgreSQL ${fmt(result.payments)} payments: directly and through PgBouncer\n`);
  console.log('req/s · p50 · p99 (ms) · errors; the ratios are to the first column, and deep pages to page 1 in the same column.\n');
  console.log(`| case | ${result.routes.join(' | ')} | ${result.routes.slice(1).map((r) => `${r} ÷ direct`).join(' | ')} |`);
  console.log(`|---|${result.routes.map(() => '---').join('|')}|${result.routes.slice(1).map(() => '---').join('|')}|`);
  for (const c of result.cases) {
    const cells = c.measured.map((m) => `${fmt(m.rps)} · ${m.p50} · ${m.p99} · ${m.errors}`);
    const ratios = c.measured.slice(1).map((m) => fmt(m.rps / c.measured[0].rps, 2));
    console.log(`| ${c.name} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`);
  }
  const page1 = result.cases[0].measured;
  const deep = result.cases[1].measured;
  console.log(`| page 1 ÷ page at 90% depth (req/s) | ${page1.map((m, i) => fmt(m.rps / deep[i].rps, 2)).join(' | ')} | |`);
}
