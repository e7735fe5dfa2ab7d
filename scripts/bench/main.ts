/**
 * `npm run bench -- --help` prints its flags.
 *
 * Builds (or reuses) datasets through the seed command, starts the real server on each, and
 * prints one table per database plus the ratios the performance targets are stated in, all
 * from this one run. A benchmark: it asserts nothing. Per dataset:
 *
 * - page 1 and other fixed URLs, hammered by autocannon over loopback;
 * - cold pages at any depth (deepPages.ts): page 1, 50 %, 90 % and the last page of the default
 *   order, by status, of the busiest account, by amount up and down, every request of a run on
 *   the same URL; printed against page 1 of the same list;
 * - walks by links.next (walks.ts), in rounds of one walk alone and one while a background writer
 *   (writer.ts) creates and captures 50 + 50 payments a second; server time per page is compared,
 *   the median of the rounds' ratios printed;
 * - the floor (floor/floorServer.ts): the same list endpoints written the plainest way over the
 *   same tables (count(*) + OFFSET, JSON.stringify), started beside the service; every list case
 *   is hammered on both, back to back, after checking both answer the same envelope, and the
 *   ratio is printed (floor/againstFloor.ts);
 * - the SQL alone (sqlAlone.ts): the statement behind per_page=5000, run by pgbench (PostgreSQL) or
 *   in a loop in-process (SQLite), to say how near the database's own rate a big page is served;
 * - first, exports (exports.ts), on a server of their own started afresh (its idle RSS is the baseline):
 *   all payments as NDJSON and as CSV, each timed with the server's RSS sampled and /health
 *   polled every ~10 ms meanwhile, then the walk of the same list by links.next at
 *   per_page=5000 for comparison. `--only exports` runs this section alone;
 * - afterwards the writer's payments are deleted and the tenant's counts rebuilt (restore.ts),
 *   so the next run finds exactly the seeded dataset again.
 *
 * - `--only pooler` (pooler.ts): PostgreSQL list cases served directly with named statements,
 *   directly as behind a transaction pooler (unnamed statements, settings with each statement), and
 *   through a transaction-pooling PgBouncer, side by side.
 * - `--only writes` (writes.ts): payment creates by `--connections` writers at once through HTTP, spread
 *   over a tenant's accounts and all on one, beside a plain INSERT transaction and the service's own
 *   write statements replayed by pgbench (its SQL floor), with waits sampled and round trips counted;
 *   `--against <checkout>` measures another checkout's server beside it, `--profile` adds a CPU profile.
 * - `--only filters` (filters.ts): page 1 and the page at 90 % depth of each filter shape of issue 31
 *   (status, currency, card_brand, account_id, a month, an amount bound; a month × status, an amount
 *   range × currency; default sort and the range's own column), on the service and on the floor (up
 *   to 1M rows), with the ratios the issue targets: 90 % ÷ page 1 and page 1 ÷ unfiltered page 1;
 *   `--against <checkout>` instead measures that build's server beside this one (filtersAgainst.ts):
 *   server time of alternating requests and p50s of alternating runs, `--walk-rounds` of them; on
 *   PostgreSQL first page 1's one statement of each list alone, each build's, with the backend's
 *   CPU per call (statementsAgainst.ts). `--shapes <text>`: only the shapes whose name holds it (`--shapes metadata`).
 *   `--under-writes`: a writer creates (400/s asked, 16–32 in flight) and captures throughout, so the
 *   counts' unfolded changes are read under load; each list measured in `--walk-rounds` alternating
 *   rounds with unfiltered page 1, its ratios the rounds' medians; its payments are deleted after.
 *
 * - `--only floor` (floorCases.ts): the list cases on the service and on the floor alone, in
 *   `--walk-rounds` alternating rounds; `--against <checkout>` (another commit with its
 *   node_modules) adds that build's server to the alternation, for before ÷ after in one run.
 * - `--only replicas` (replicas.ts): a primary and a synchronous streaming standby of its own on
 *   loopback ports, the list cases served by the primary alone and with reads on the standby
 *   (DATABASE_REPLICA_URLS), alternated `--walk-rounds` times; what the replica check costs; and
 *   page 1 read by the writer's own tenant while the writer runs, the standby's replay lag sampled.
 *
 * Then, per database, on a fresh database of its own, the cost of events and webhooks
 * (outboxCost.ts): creates/s without and with an enabled endpoint, and delivery throughput to a
 * loopback receiver. `--outbox-only` runs just that section (a few minutes, no datasets).
 */
import { resolve } from 'node:path';
import { busiestAccount, writerAccounts } from './accounts.ts';
import { startWriter } from './writer.ts';
import { BENCH_TENANT, ensureDataset, writeKey, type BenchDialect, type Dataset } from './datasets.ts';
import { deepShapes, measureDeepPages, pageAtDepth } from './deepPages.ts';
import { measureExports, type ExportsResult } from './exports.ts';
import { printDepthAndWriteRatios, printExports, printFloorRatios, printSizeRatios, printSparseRatios, printTable, SPARSE_FIELDS, SPARSE_SCENARIO, type SizeResult } from './report.ts';
import { restoreDataset } from './restore.ts';
import { startServer } from './server.ts';
import { getJson, hammer, type Measured } from './scenarios.ts';
import { encodedSizes } from './compression.ts';
import { walkShapes, walksUnderWrites } from './walks.ts';
import { measureAgainstFloor, startFloor } from './floor/againstFloor.ts';
import { untilQuiet } from './untilQuiet.ts';
import { measureOutboxCost, printOutboxCost } from './outboxCost.ts';
import { sqlAloneRate } from './sqlAlone.ts';
import { measureThroughPooler, printPooler } from './pooler.ts';
import { measureReplicas, printReplicas } from './replicas.ts';
import { cardOf, filterLists, measureFilters, monthOfData, printFilters } from './filters.ts';
import { backendClient, measureStatementsAgainst, pageQueriesOf, printStatementsAgainst } from './statementsAgainst.ts';
import { measureFiltersAgainst, printFiltersAgainst } from './filtersAgainst.ts';
import { pollHealth, summarizeLatencies } from './healthPoller.ts';
import { measureWrites, printWrites } from './writes.ts';
import { floorCasePaths, measureFloorRounds, printFloorRounds } from './floorCases.ts';
import { parseScriptArgs } from '../support/scriptArgs.ts';

const values = parseScriptArgs({ command: 'bench', file: 'scripts/bench/main.ts', hints: { sizes: '10000,100000,1000000', only: 'exports|pooler|replicas|filters|writes|floor', against: '<checkout>', shapes: '<text>' } }, {
    db: { type: 'string', default: 'sqlite,postgres' },
    sizes: { type: 'string', default: '10000,100000,1000000' },
    '10m': { type: 'boolean', default: false },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    'no-writer': { type: 'boolean', default: false },
    'walk-rounds': { type: 'string', default: '3' },
    /** `exports`: only the export section (it needs no writer and no other section). */
    only: { type: 'string' },
    'outbox-only': { type: 'boolean', default: false },
    /** `--only writes`, `--only floor` and `--only filters`: another checkout whose server is measured beside this one (before and after). */
    against: { type: 'string' },
    /** `--only filters`: writers create (and capture) continuously while every shape is measured, 16 in flight at most; the writer's payments are deleted after. */
    'under-writes': { type: 'boolean', default: false },
    /** `--only writes`: a CPU profile of the server during a spread run. */
    profile: { type: 'boolean', default: false },
    /** `--only filters`: only the filter shapes whose name holds this text (e.g. `metadata`). */
    shapes: { type: 'string' },
  });
const dialects = values.db.split(',') as BenchDialect[];
const sizes = values.sizes.split(',').map(Number).concat(values['10m'] ? [10_000_000] : []);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const SECTIONS = ['exports', 'pooler', 'replicas', 'filters', 'writes', 'floor'];
if (values.only !== undefined && !SECTIONS.includes(values.only)) {
  process.stderr.write(`--only knows the sections ${SECTIONS.join(', ')}; not ${values.only}\n`);
  process.exit(2);
}
const onlyExports = values.only === 'exports';
const onlyPooler = values.only === 'pooler';
const onlyReplicas = values.only === 'replicas';
const onlyFilters = values.only === 'filters';
const onlyWrites = values.only === 'writes';
const onlyFloor = values.only === 'floor';
const withWriter = !values['no-writer'] && !onlyExports && !onlyFloor;
const log = (line: string) => console.error(line);

async function benchDataset(ds: Dataset): Promise<SizeResult> {
  const writerKey = withWriter ? await writeKey(ds) : undefined;
  const server = await startServer(ds.url);
  const base = `${server.origin}/v3`;
  try {
    const first = await getJson(`${base}/payments?per_page=10`, ds.key);
    const lastPage: number = first.meta.last_page;
    const deep = Math.max(2, Math.floor(lastPage * 0.9));
    const account = (await getJson(`${base}/accounts?per_page=1`, ds.key)).data[0].id as string;
    const busiest = await busiestAccount(base, ds.key);
    const scenarios: Record<string, Measured> = {};
    /** The servers whose leftover work a run waits out (untilQuiet.ts): ours, and the floor once it runs. */
    const running = [server.child.pid].filter((pid): pid is number => pid !== undefined);
    const measure = async (name: string, url: string, headers: Record<string, string> = {}) => {
      log(`  ${ds.dialect} ${ds.payments}: ${name}`);
      const measured = await hammer(url, ds.key, seconds, connections, headers);
      await untilQuiet(running, ds);
      return measured;
    };
    const run = async (name: string, url: string, headers: Record<string, string> = {}) => {
      scenarios[name] = await measure(name, url, headers);
    };
    await run('page 1', `${base}/payments`);
    await run('page 1, per_page=5000', `${base}/payments?per_page=5000`);
    // The same page as three fields (issue 15: at least 3x smaller, not slower), right after the full one.
    await run(SPARSE_SCENARIO, `${base}/payments?per_page=5000&${SPARSE_FIELDS}`);
    const sparseBytes = (await encodedSizes(`${base}/payments?per_page=5000&${SPARSE_FIELDS}`, ds.key, ['identity'])).identity;
    await run('page 1, filter[status]=succeeded', `${base}/payments?filter[status]=succeeded`);
    await run('filter[status]=failed&sort=-amount', `${base}/payments?filter[status]=failed&sort=-amount`);
    await run('one account’s payments', `${base}/accounts/${account}/payments`);
    // A walker just read page `deep` (per_page=10): the next page, as its links.next names it.
    const warm = await getJson(`${base}/payments?page=${deep}&per_page=10`, ds.key);
    await run('next page at 90% depth via links.next', warm.links.next);
    // What compression costs and saves on the biggest page a client can ask for.
    await run('page 1, per_page=5000, Accept-Encoding: gzip', `${base}/payments?per_page=5000`, { 'accept-encoding': 'gzip' });
    await run('page 1, per_page=5000, Accept-Encoding: br', `${base}/payments?per_page=5000`, { 'accept-encoding': 'br' });
    const compressed = await encodedSizes(`${base}/payments?per_page=5000`, ds.key);

    // The same list cases on the floor (the plainest endpoint over the same tables), case by case.
    const floorServer = await startFloor(ds.url);
    if (floorServer.child.pid !== undefined) running.push(floorServer.child.pid);
    let floor;
    try {
      floor = await measureAgainstFloor(
        server.origin,
        floorServer.origin,
        ds.key,
        await floorCasePaths(server.origin, ds.key),
        measure,
        ds.payments <= 1_000_000,
      );
    } finally {
      await floorServer.stop();
    }

    // The statement behind per_page=5000 alone, with no HTTP and no rendering (sqlAlone.ts).
    log(`  ${ds.dialect} ${ds.payments}: per_page=5000, the SQL alone`);
    const sqlAlone = await sqlAloneRate(ds, 5000, seconds, connections);

    // Cold pages at any depth, before any walk has been near them.
    const deepPages = await measureDeepPages(base, ds.key, deepShapes(busiest.id), measure);

    // Event-loop health: /health latency while 5000-row pages are being served, asked from a
    // worker thread so that this thread's reading of the pages is not counted (healthPoller.ts).
    log(`  ${ds.dialect} ${ds.payments}: /health under per_page=5000 load`);
    const health = pollHealth(`${server.origin}/health`);
    await hammer(`${base}/payments?per_page=5000`, ds.key, seconds, connections);
    const healthUnderLoad = summarizeLatencies(await health.stop());

    const walks = await walksUnderWrites({
      origin: server.origin,
      key: ds.key,
      writeKey: writerKey,
      shapes: walkShapes(busiest.id),
      minSeconds: seconds,
      rounds: Number(values['walk-rounds']),
      run: measure,
      log: (line) => log(`  ${ds.dialect} ${ds.payments}:${line}`),
    });
    const walked = walks.pairs[0].without;
    if (walked.rows !== ds.payments) throw new Error(`walk saw ${walked.rows} rows, expected ${ds.payments}`);
    return { scenarios, deep: deepPages, walk: walked, walks, healthUnderLoad, compressed, sparseBytes, busiest, floor, sqlAlone };
  } finally {
    await server.stop();
  }
}

/** The export section on a server of its own, started afresh so its idle RSS is a baseline. */
async function benchExports(ds: Dataset): Promise<ExportsResult> {
  const start = async () => {
    const server = await startServer(ds.url);
    return { origin: server.origin, pid: server.child.pid!, stop: () => server.stop() };
  };
  return measureExports({ start, key: ds.key, log: (line) => log(`  ${ds.dialect} ${ds.payments}:${line}`) });
}

/** Deletes what the writer created and rebuilds the counts (restore.ts), even after a failed run. */
async function restore(ds: Dataset) {
  const restored = await restoreDataset(ds.url, BENCH_TENANT);
  log(`  ${ds.dialect} ${ds.payments}: restored: deleted ${restored?.deleted} writer payments, ${restored?.payments} payments left`);
  return restored;
}

// `--only pooler`: PostgreSQL directly and through a transaction-pooling PgBouncer (pooler.ts), nothing else.
for (const size of onlyPooler ? sizes : []) {
  log(`postgres: dataset of ${size.toLocaleString('en')} payments, directly and through PgBouncer`);
  printPooler(await measureThroughPooler(await ensureDataset('postgres', size, log), { seconds, connections, log }));
}

// `--only replicas`: a primary and a streaming standby of its own, the primary alone against reads from the standby (replicas.ts).
for (const size of onlyReplicas ? sizes : []) {
  printReplicas(await measureReplicas({ payments: size, seconds, connections, rounds: Number(values['walk-rounds']), log }));
}

// `--only floor`: the list cases against the floor (and another build's server), nothing else.
for (const dialect of onlyFloor ? dialects : []) {
  for (const size of sizes) {
    log(`${dialect}: dataset of ${size.toLocaleString('en')} payments, list cases against the floor`);
    const ds = await ensureDataset(dialect, size, log);
    const rounds = Number(values['walk-rounds']);
    printFloorRounds(ds, await measureFloorRounds(ds, { seconds, connections, rounds, beforeDir: values.against, log }));
  }
}

// `--only filters`: the filter shapes (filters.ts) on each database and size, nothing else.
for (const dialect of onlyFilters ? dialects : []) {
  for (const size of sizes) {
    log(`${dialect}: dataset of ${size.toLocaleString('en')} payments, filter shapes`);
    const ds = await ensureDataset(dialect, size, log);
    const server = await startServer(ds.url);
    // With --against, another build's server beside this one instead of the floor (filtersAgainst.ts).
    const before = values.against
      ? await startServer(ds.url, { command: [resolve(values.against, 'src/cli/main.ts'), 'serve'], cwd: values.against })
      : undefined;
    // The floor's OFFSET at 90 % of 10M rows takes seconds a request: it stops at 1M, as its walk does
    // (BENCH_FLOOR=0 leaves it out at 1M too: its deep pages take most of the run's time).
    const floor = !before && !values['under-writes'] && size <= 1_000_000 && process.env.BENCH_FLOOR !== '0' ? await startFloor(ds.url) : undefined;
    try {
      const base = `${server.origin}/v3`;
      const busiest = (await busiestAccount(base, ds.key)).id;
      const lists = filterLists({ busiestAccount: busiest, month: await monthOfData(base, ds.key), card: await cardOf(base, ds.key, busiest) }).filter(
        (list) => values.shapes === undefined || list.name.includes(values.shapes),
      );
      const measure = (name: string, url: string) => {
        log(`  ${dialect} ${size}: ${name}`);
        return hammer(url, ds.key, seconds, connections);
      };
      if (before && values.against) {
        if (dialect === 'postgres') {
          // The statements alone first (seconds), then through HTTP.
          const statementOptions = { calls: 1000, rounds: 5 };
          const pages = await pageQueriesOf(ds, values.against);
          const unfiltered = { name: 'unfiltered page 1', query: '' };
          printStatementsAgainst(await measureStatementsAgainst(() => backendClient(ds.url), pages, [unfiltered, ...lists], statementOptions), statementOptions);
        }
        const sideBySide = { requests: 15, rounds: Number(values['walk-rounds']), seconds };
        const pids = { ours: server.child.pid as number, before: before.child.pid as number };
        const cases = await measureFiltersAgainst(ds, { ours: server.origin, before: before.origin }, pids, lists, { ...sideBySide, hammer: measure });
        printFiltersAgainst(ds, cases, sideBySide);
      } else if (values['under-writes']) {
        // The counts' tail under load: deep pages and filtered pages while writes go on (issue 49 item 3).
        const accounts = await writerAccounts(base, ds.key);
        const writer = startWriter({ origin: server.origin, key: await writeKey(ds), accounts, createsPerSecond: 400, capturesPerSecond: 100, maxSeconds: 3600 });
        try {
          // In alternating rounds: the writer's bursts would otherwise meet one URL's run and not the other's.
          printFilters(await measureFilters(ds, { ours: server.origin }, lists, measure, Number(values['walk-rounds'])));
        } finally {
          const stats = await writer.stop();
          log(`  ${dialect} ${size}: writer: ${stats.created} creates, ${stats.captured} captures in ${stats.seconds.toFixed(0)} s (${(stats.created / stats.seconds).toFixed(0)}/s), ${stats.createFailures + stats.captureFailures} failures, p99 ${stats.latencyP99} ms`);
          await restore(ds);
        }
      } else printFilters(await measureFilters(ds, { ours: server.origin, floor: floor?.origin }, lists, measure));
    } finally {
      await floor?.stop();
      await before?.stop();
      await server.stop();
    }
  }
}

// `--only writes`: payment creates by 16 writers at once beside their SQL floors (writes.ts), nothing else.
for (const dialect of onlyWrites ? dialects : []) {
  log(`${dialect}: payment creates`);
  printWrites(
    await measureWrites(dialect, { seconds, connections, rounds: Number(values['walk-rounds']), against: values.against, profile: values.profile, log }),
  );
}

for (const dialect of values['outbox-only'] || onlyPooler || onlyReplicas || onlyFilters || onlyWrites || onlyFloor ? [] : dialects) {
  const results = new Map<number, SizeResult>();
  const exportResults = new Map<number, ExportsResult>();
  for (const size of sizes) {
    log(`${dialect}: dataset of ${size.toLocaleString('en')} payments`);
    const ds = await ensureDataset(dialect, size, log);
    exportResults.set(size, await benchExports(ds));
    if (onlyExports) continue;
    let result: SizeResult;
    let restored: SizeResult['restored'];
    try {
      result = await benchDataset(ds);
    } finally {
      if (withWriter) restored = await restore(ds);
    }
    results.set(size, { ...result, restored });
  }
  printExports(dialect, exportResults);
  if (onlyExports) continue;
  printTable(dialect, results, { seconds, connections });
  printDepthAndWriteRatios(dialect, results);
  printSparseRatios(dialect, results);
  printFloorRatios(dialect, results);
  if (results.size > 1) printSizeRatios(dialect, results);
}

// `--only exports` runs nothing else.
for (const dialect of onlyExports || onlyPooler || onlyReplicas || onlyFilters || onlyWrites || onlyFloor ? [] : dialects) printOutboxCost(await measureOutboxCost(dialect, { log }));
