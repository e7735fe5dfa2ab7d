/**
 * npm run bench [-- --db sqlite,postgres --sizes 10000,100000,1000000 --10m --seconds 5 --connections 16]
 *
 * Builds (or reuses) datasets through the seed command, starts the real server on each, drives it
 * with autocannon over loopback, and prints one table per database plus the ratios the
 * performance targets are stated in, all from this one run. A benchmark: it asserts nothing.
 */
import { parseArgs } from 'node:util';
import { ensureDataset, type BenchDialect, type Dataset } from './datasets.ts';
import { startServer } from './server.ts';
import { getJson, hammer, walk, type Measured, type Walk } from './scenarios.ts';
import { encodedSizes } from './compression.ts';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite,postgres' },
    sizes: { type: 'string', default: '10000,100000,1000000' },
    '10m': { type: 'boolean', default: false },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
  },
});
const dialects = values.db.split(',') as BenchDialect[];
const sizes = values.sizes.split(',').map(Number).concat(values['10m'] ? [10_000_000] : []);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const log = (line: string) => console.error(line);

type Row = Record<string, Measured>;
interface SizeResult {
  scenarios: Row;
  walk: Walk;
  healthUnderLoad: Measured;
  /** Bytes of a per_page=5000 page by Content-Encoding. */
  compressed: Record<string, number>;
}

async function benchDataset(ds: Dataset): Promise<SizeResult> {
  const server = await startServer(ds.url);
  const base = `${server.origin}/v3`;
  try {
    const first = await getJson(`${base}/payments?per_page=10`, ds.key);
    const lastPage: number = first.meta.last_page;
    const deep = Math.max(2, Math.floor(lastPage * 0.9));
    const account = (await getJson(`${base}/accounts?per_page=1`, ds.key)).data[0].id as string;
    const scenarios: Row = {};
    const run = async (name: string, url: string, headers: Record<string, string> = {}) => {
      log(`  ${ds.dialect} ${ds.payments}: ${name}`);
      scenarios[name] = await hammer(url, ds.key, seconds, connections, headers);
    };
    await run('page 1', `${base}/payments`);
    await run('page 1, per_page=5000', `${base}/payments?per_page=5000`);
    await run('page 1, filter[status]=succeeded', `${base}/payments?filter[status]=succeeded`);
    await run('filter[status]=failed&sort=-amount', `${base}/payments?filter[status]=failed&sort=-amount`);
    await run('one account’s payments', `${base}/accounts/${account}/payments`);
    log(`  ${ds.dialect} ${ds.payments}: 90% depth is page ${deep} of ${lastPage}`);
    await run('page at 90% depth, cold (deferred join on PostgreSQL, skip hops on SQLite)', `${base}/payments?page=${deep}`);
    // A walker just read page `deep`: its next page is found by seek.
    const warm = await getJson(`${base}/payments?page=${deep}`, ds.key);
    await run('next page at 90% depth via links.next (seek)', warm.links.next);
    // What compression costs and saves on the biggest page a client can ask for.
    await run('page 1, per_page=5000, Accept-Encoding: gzip', `${base}/payments?per_page=5000`, { 'accept-encoding': 'gzip' });
    await run('page 1, per_page=5000, Accept-Encoding: br', `${base}/payments?per_page=5000`, { 'accept-encoding': 'br' });
    const compressed = await encodedSizes(`${base}/payments?per_page=5000`, ds.key);

    // Event-loop health: /health latency while 5000-row pages are being served.
    log(`  ${ds.dialect} ${ds.payments}: /health under per_page=5000 load`);
    const [, healthUnderLoad] = await Promise.all([
      hammer(`${base}/payments?per_page=5000`, ds.key, seconds, connections),
      hammer(`${server.origin}/health`, ds.key, seconds, 1),
    ]);
    log(`  ${ds.dialect} ${ds.payments}: walk by links.next, per_page=5000`);
    const walked = await walk(server.origin, '/v3/payments?per_page=5000', ds.key);
    if (walked.rows !== ds.payments) throw new Error(`walk saw ${walked.rows} rows, expected ${ds.payments}`);
    return { scenarios, walk: walked, healthUnderLoad, compressed };
  } finally {
    await server.stop();
  }
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

function printTable(dialect: BenchDialect, results: Map<number, SizeResult>) {
  const names = [...new Set([...results.values()].flatMap((r) => Object.keys(r.scenarios)))];
  const columns = [...results.keys()];
  console.log(`\n### ${dialect} (concurrency ${connections}, ${seconds} s per scenario)\n`);
  console.log(`| scenario | ${columns.map((c) => `${c.toLocaleString('en')} payments: req/s · p50 · p99 (ms)`).join(' | ')} |`);
  console.log(`|---|${columns.map(() => '---').join('|')}|`);
  const cell = (m?: Measured) => (m ? `${fmt(m.rps, 0)} · ${m.p50} · ${m.p99}${m.errors ? ` · ${m.errors} errors` : ''}` : '–');
  for (const name of names) {
    console.log(`| ${name} | ${columns.map((c) => cell(results.get(c)!.scenarios[name])).join(' | ')} |`);
  }
  console.log(`| walk all by links.next, per_page=5000 | ${columns.map((c) => { const w = results.get(c)!.walk; return `${fmt(w.seconds, 2)} s (server ${fmt(w.serverSeconds, 2)} s) · ${w.pages} pages · ${fmt(w.megabytesPerSecond)} MB/s`; }).join(' | ')} |`);
  console.log(`| bytes of a per_page=5000 page: identity · gzip · br | ${columns.map((c) => { const b = results.get(c)!.compressed; return `${b.identity.toLocaleString('en')} · ${b.gzip.toLocaleString('en')} · ${b.br.toLocaleString('en')}`; }).join(' | ')} |`);
  console.log(`| /health p50 · p99 while serving 5000-row pages | ${columns.map((c) => { const h = results.get(c)!.healthUnderLoad; return `${h.p50} · ${h.p99}${h.errors ? ` · ${h.errors} errors` : ''}`; }).join(' | ')} |`);
}

function scenario(r: SizeResult, name: string): Measured {
  return r.scenarios[name];
}

function printRatios(dialect: BenchDialect, results: Map<number, SizeResult>) {
  const small = results.get(Math.min(...results.keys()))!;
  const largestSize = Math.max(...results.keys());
  const large = results.get(largestSize)!;
  const ratio = (a: number, b: number) => fmt(a / b, 2);
  const lines: string[] = [];
  const label = `${largestSize.toLocaleString('en')} vs ${Math.min(...results.keys()).toLocaleString('en')}`;
  for (const [key, name] of [['page 1', 'unfiltered'], ['one account’s payments', 'one account'], ['page 1, filter[status]=succeeded', 'by status']] as const) {
    lines.push(`| page-1 p50 ${label}, ${name} (target ≤ 1.5) | ${ratio(scenario(large, key).p50, scenario(small, key).p50)} |`);
  }
  lines.push(`| page-1 req/s ${label} (target ≥ 0.7) | ${ratio(scenario(large, 'page 1').rps, scenario(small, 'page 1').rps)} |`);
  lines.push(`| 90%-deep page by links.next p50 ÷ page-1 p50, ${largestSize.toLocaleString('en')} (target ≤ 1.5) | ${ratio(scenario(large, 'next page at 90% depth via links.next (seek)').p50, scenario(large, 'page 1').p50)} |`);
  lines.push(`| walk of ${largestSize.toLocaleString('en')} at per_page 5000, server time (target < 6 s on PostgreSQL) | ${fmt(large.walk.serverSeconds, 2)} s (wall ${fmt(large.walk.seconds, 2)} s) |`);
  const hundredK = results.get(100_000);
  if (hundredK && largestSize > 100_000) {
    lines.push(`| walk server time per row, ${largestSize.toLocaleString('en')} ÷ 100,000 (target ≤ 1.3) | ${ratio(large.walk.serverSeconds / largestSize, hundredK.walk.serverSeconds / 100_000)} |`);
  }
  console.log(`\n#### ${dialect}: ratios from this run\n\n| ratio | value |\n|---|---|\n${lines.join('\n')}`);
}

for (const dialect of dialects) {
  const results = new Map<number, SizeResult>();
  for (const size of sizes) {
    log(`${dialect}: dataset of ${size.toLocaleString('en')} payments`);
    const ds = await ensureDataset(dialect, size, log);
    results.set(size, await benchDataset(ds));
  }
  printTable(dialect, results);
  if (results.size > 1) printRatios(dialect, results);
}
