/**
 * `npm run bench:profile -- --help` prints its flags.
 *
 * Where a request's time goes: for each path, starts the real server (WORKERS=1) with
 * `--cpu-prof`, hammers the path alone for `seconds`, stops it, and prints the functions with the
 * most self time. On PostgreSQL the server talks to the database through a counting proxy
 * (pgWireCounter.ts), so each path also gets its statements and round trips per request.
 * The profiles themselves are kept (their directory is printed) for Chrome's or VS Code's viewer.
 * A measurement: it asserts nothing. docs/performance.md has its findings.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDataset, type BenchDialect } from '../datasets.ts';
import { hammer } from '../scenarios.ts';
import { startServer } from '../server.ts';
import { startPgWireCounter, type WireCounter } from './pgWireCounter.ts';
import { topFunctions } from './topFunctions.ts';
import { parseScriptArgs } from '../../support/scriptArgs.ts';

const values = parseScriptArgs({ command: 'bench:profile', file: 'scripts/bench/profile/main.ts', hints: { db: 'postgres|sqlite' } }, {
    db: { type: 'string', default: 'postgres' },
    size: { type: 'string', default: '10000' },
    paths: { type: 'string', default: '/v3/payments,/v3/payments?per_page=5000' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    top: { type: 'string', default: '15' },
  });
const log = (line: string) => console.error(line);
const dialect = values.db as BenchDialect;
const ds = await ensureDataset(dialect, Number(values.size), log);
const profiles = mkdtempSync(join(tmpdir(), 'api-profiles-'));

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The dataset's URL pointed at the proxy instead of PostgreSQL itself. */
function throughProxy(url: string, counter: WireCounter): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(counter.port);
  return parsed.toString();
}

/** On PostgreSQL, a counting proxy in front of the dataset's server. */
async function wireCounter(): Promise<WireCounter | undefined> {
  if (dialect !== 'postgres') return undefined;
  const target = new URL(ds.url);
  return startPgWireCounter({ host: target.hostname, port: Number(target.port || 5432) });
}

for (const [index, path] of values.paths.split(',').entries()) {
  const dir = join(profiles, String(index));
  const counter = await wireCounter();
  const server = await startServer(counter ? throughProxy(ds.url, counter) : ds.url, {
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir],
    env: { WORKERS: '1' },
  });
  let requests = 0;
  let wire = { roundTrips: 0, statements: 0 };
  try {
    // Warm up (JIT, prepared statements, pooled connections), then count and profile the rest.
    await hammer(server.origin + path, ds.key, 1, Number(values.connections));
    const before = counter?.counts();
    const cpuBefore = cpuSeconds(server.child.pid!);
    const measured = await hammer(server.origin + path, ds.key, Number(values.seconds), Number(values.connections));
    const cpu = cpuSeconds(server.child.pid!) - cpuBefore;
    const after = counter?.counts();
    requests = Math.round(measured.rps * Number(values.seconds));
    if (before && after) wire = { roundTrips: after.roundTrips - before.roundTrips, statements: after.statements - before.statements };
    console.log(`\n## ${dialect} ${ds.payments.toLocaleString('en')} payments: GET ${path}`);
    console.log(`${measured.rps.toFixed(0)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms (${values.connections} connections, WORKERS=1)`);
    console.log(`server CPU per request: ${((cpu * 1000) / requests).toFixed(2)} ms (user + system)`);
  } finally {
    await server.stop();
    await counter?.close();
  }
  if (counter && requests > 0) {
    console.log(`per request: ${(wire.statements / requests).toFixed(2)} statements, ${(wire.roundTrips / requests).toFixed(2)} round trips to PostgreSQL`);
  }
  const [file] = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const { busyMs, top } = topFunctions(join(dir, file), Number(values.top));
  console.log(`\nbusy CPU ${(busyMs / 1000).toFixed(1)} s over warm-up and run; top functions by self time:\n`);
  console.log('| self | function |\n|---:|---|');
  for (const f of top) console.log(`| ${(f.share * 100).toFixed(1)} % | \`${f.name}\` |`);
}
console.error(`\nprofiles kept in ${profiles}`);
