/**
 * The write path (issue 35): `npm run bench -- --only writes [--db sqlite,postgres --seconds 5
 * --connections 16 --walk-rounds 3 --against <checkout> --profile]`.
 *
 * Per database, on a fresh database of its own (a temp SQLite file, a new schema on
 * BENCH_DATABASE_URL's PostgreSQL) with one tenant of 96 accounts, the real server (`cli serve`)
 * takes `POST /v3/payments` (card 4242…, capture, metadata `channel=web`, a fresh Idempotency-Key each) from
 * `connections` writers at once through autocannon, spread over the accounts and all on one
 * account. In the same rounds, alternating:
 *
 * - the plain INSERT transaction: the service's own payment insert alone, in begin … commit;
 * - the SQL floor: every statement of the service's write transaction for one create, captured
 *   from the service's write path (writeStatements.ts) and replayed by pgbench with the same
 *   number of clients (PostgreSQL) or in a loop on one connection (SQLite, one writer at a time);
 * - with `--against <dir>`, the same writes on a server started from another checkout (its own
 *   fresh database): before and after side by side. The floors run on a fresh database of their
 *   own and every server's waits are sampled, so neither side pays for them alone (when ours' did,
 *   whichever checkout was `ours` came out 0.45–0.6× the other, the same code either way round).
 *
 * While ours writes on PostgreSQL, what its connections wait on is sampled every 20 ms from
 * pg_stat_activity (wait_event, or the state when none: `active` is working, `idle in
 * transaction` waits for the service), with the statement they wait in. Once per server, a
 * counting proxy (profile/pgWireCounter.ts) gives statements and round trips per create.
 * `--profile` adds a CPU profile (`--cpu-prof`, WORKERS=1) of each server during a spread run:
 * ours' top self time, and every server's CPU per create by group (profile/profileGroups.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { startServer, type RunningServer } from './server.ts';
import { startPgWireCounter } from './profile/pgWireCounter.ts';
import { topFunctions } from './profile/topFunctions.ts';
import { profileGroups } from './profile/profileGroups.ts';
import { captureCreate, type CapturedCreate } from './writeStatements.ts';
import { floorRate } from './writeFloors.ts';
import type { BenchDialect } from './datasets.ts';
import { median } from './median.ts';

const run = promisify(execFile);
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ACCOUNTS = 96;
const CURRENCIES = ['EUR', 'USD', 'GBP'];

export interface WritesOptions {
  seconds: number;
  connections: number;
  rounds: number;
  /** Another checkout (a directory with src/cli/main.ts) to measure beside this one. */
  against?: string;
  profile?: boolean;
  log: (line: string) => void;
}

interface Target {
  name: string;
  dir: string;
  url: string;
  appName: string;
  tenantId: string;
  key: string;
  accounts: Array<{ id: string; currency: string }>;
  drop: () => Promise<void>;
}

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Cores busy on the whole machine (from /proc/stat), in the server process, and in its PostgreSQL backends. */
  machineCores: number;
  serverCores: number;
  databaseCores: number;
}

export interface WritesResult {
  dialect: BenchDialect;
  connections: number;
  seconds: number;
  load: string;
  /** Per target: creates per round, spread over the accounts and all on one account. */
  targets: Record<string, { spread: Run[]; one: Run[]; wire?: { statements: number; roundTrips: number } }>;
  plainInsert: number[];
  sqlFloor: number[];
  /** The SQL floor with the counted rows of before migration 0018 (issue 31: what the slices cost a write), per round. */
  sqlFloorBefore0018: number[];
  /** The SQL floor without the pairs' bucket rows (migration 0031: what bucketing the pairs costs a write), per round. */
  sqlFloorWithoutPairs: number[];
  countedRows: CapturedCreate['rows'];
  /** Sampled waits of ours' connections while it wrote (PostgreSQL): share of samples per wait and statement. */
  waits: Record<string, Array<[string, number]>>;
  profile?: { busyMs: number; top: Array<{ name: string; share: number }> };
  /** Per target: CPU µs per create by group (profile/profileGroups.ts), from its own profiled spread run. */
  profileGroups?: Record<string, { creates: number; busyMs: number; groups: Array<{ group: string; ms: number }> }>;
}

const cli = (dir: string, url: string, ...args: string[]) =>
  run(process.execPath, [join(dir, 'src/cli/main.ts'), ...args], { cwd: dir, env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' } });

async function scratch(dialect: BenchDialect, name: string): Promise<{ url: string; appName: string; drop: () => Promise<void> }> {
  const appName = `bench_writes_${name}_${process.pid}`;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-writes-'));
    return { url: `sqlite:${join(dir, 'writes.sqlite')}`, appName, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query(`drop schema if exists ${appName} cascade; create schema ${appName}`);
  await admin.end();
  const url = `${PG_BASE}?options=${encodeURIComponent(`-c search_path=${appName} -c application_name=${appName}`)}`;
  return {
    url,
    appName,
    async drop() {
      const c = new pg.Client({ connectionString: PG_BASE });
      await c.connect();
      await c.query(`drop schema ${appName} cascade`);
      await c.end();
    },
  };
}

async function prepareTarget(dialect: BenchDialect, name: string, dir: string): Promise<Target> {
  const { url, appName, drop } = await scratch(dialect, name);
  await cli(dir, url, 'tenants', 'create', 'bench-writes');
  const key = (await cli(dir, url, 'keys', 'create', '--tenant', 'bench-writes', '--scopes', 'read,write')).stdout.trim();
  const server = await serve(dir, url);
  const accounts: Target['accounts'] = [];
  try {
    for (let i = 0; i < ACCOUNTS; i++) {
      const currency = CURRENCIES[i % CURRENCIES.length];
      const r = await fetch(`${server.origin}/v3/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Writer ${i}`, email: `w${i}@example.com`, currency }),
      });
      const body = (await r.json()) as { data: { id: string } };
      if (r.status !== 201) throw new Error(`account create answered ${r.status}`);
      accounts.push({ id: body.data.id, currency });
    }
  } finally {
    await server.stop();
  }
  const tenantId = await tenantIdOf(dialect, url);
  return { name, dir, url, appName, tenantId, key, accounts, drop };
}

async function tenantIdOf(dialect: BenchDialect, url: string): Promise<string> {
  if (dialect === 'sqlite') {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(url.slice('sqlite:'.length), { readOnly: true });
    const row = db.prepare(`select id from tenants where name = 'bench-writes'`).get() as { id: string };
    db.close();
    return row.id;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query(`select id from tenants where name = 'bench-writes'`);
  await c.end();
  return rows[0].id;
}

function serve(dir: string, url: string, extra: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Promise<RunningServer> {
  return startServer(url, { cwd: dir, command: [join(dir, 'src/cli/main.ts'), 'serve'], nodeArgs: extra.nodeArgs, env: extra.env });
}

/** CPU seconds a process has used (utime + stime, 100 ticks a second). */
export function processSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Busy and total CPU seconds of the machine so far. */
function machineSeconds(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: (total - cpu[3] - cpu[4]) / 100, total: total / 100 };
}

async function backendPids(appName: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: PG_BASE });
  await c.connect();
  const { rows } = await c.query('select pid from pg_stat_activity where application_name = $1', [appName]);
  await c.end();
  return rows.map((r) => r.pid as number);
}

/** Samples what the target's connections wait on, every 20 ms, until stopped. */
function sampleWaits(appName: string): { stop(): Promise<Map<string, number>> } {
  const tally = new Map<string, number>();
  const client = new pg.Client({ connectionString: PG_BASE });
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query(
        `select coalesce(wait_event_type || ':' || wait_event, state) as wait,
                case when state = 'idle' then '' else regexp_replace(left(query, 60), '\\s+', ' ', 'g') end as statement
         from pg_stat_activity where application_name = $1`,
        [appName],
      );
      for (const r of rows) {
        const k = r.statement ? `${r.wait} — ${r.statement}` : r.wait;
        tally.set(k, (tally.get(k) ?? 0) + 1);
      }
      await new Promise((done) => setTimeout(done, 20));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return tally;
    },
  };
}

/** `connections` writers creating payments for `seconds`, on every account in turn or all on the first. */
async function hammerCreates(origin: string, target: Target, mode: 'spread' | 'one', seconds: number, connections: number): Promise<Omit<Run, 'machineCores' | 'serverCores' | 'databaseCores'>> {
  const latencies: number[] = [];
  const runId = `bench-writes:${Date.now().toString(36)}:${mode}:`;
  let i = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(
      {
        url: origin,
        connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            path: '/v3/payments',
            setupRequest: (request) => {
              const n = i++;
              const account = mode === 'one' ? target.accounts[0] : target.accounts[n % target.accounts.length];
              return {
                ...request,
                headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', 'idempotency-key': `${runId}${n}` },
                body: JSON.stringify({
                  account_id: account.id,
                  amount: 100 + ((n * 7919) % 100_000),
                  currency: account.currency,
                  capture: true,
                  card: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvc: '123' },
                  // Every create carries the same metadata value: its entry, and the value's count row every writer adds to.
                  metadata: { channel: 'web' },
                }),
              };
            },
          },
        ],
      },
      (error, finished) => (error ? fail(error) : done(finished)),
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      if (status === 201) latencies.push(responseTime);
    });
  });
  latencies.sort((a, b) => a - b);
  const q = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN) * 10) / 10;
  return { rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99), errors: result.errors + result.timeouts + result.non2xx };
}

async function measuredRun(server: RunningServer, target: Target, dialect: BenchDialect, mode: 'spread' | 'one', options: WritesOptions, waits?: Map<string, number>): Promise<Run> {
  const pids = dialect === 'postgres' ? await backendPids(target.appName) : [];
  const m0 = machineSeconds();
  const s0 = processSeconds(server.child.pid!);
  const d0 = pids.reduce((a, p) => a + processSeconds(p), 0);
  const sampler = waits && dialect === 'postgres' ? sampleWaits(target.appName) : undefined;
  const r = await hammerCreates(server.origin, target, mode, options.seconds, options.connections);
  const sampled = await sampler?.stop();
  if (sampled && waits) for (const [k, n] of sampled) waits.set(k, (waits.get(k) ?? 0) + n);
  const m1 = machineSeconds();
  const wall = (m1.total - m0.total) / cores();
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    ...r,
    machineCores: round((m1.busy - m0.busy) / wall),
    serverCores: round((processSeconds(server.child.pid!) - s0) / wall),
    databaseCores: round((pids.reduce((a, p) => a + processSeconds(p), 0) - d0) / wall),
  };
}

function cores(): number {
  return readFileSync('/proc/stat', 'utf8').split('\n').filter((l) => /^cpu\d/.test(l)).length;
}

/** Statements and round trips per create, through a counting proxy (PostgreSQL). */
async function wirePerCreate(target: Target, options: WritesOptions) {
  const upstream = new URL(PG_BASE);
  const counter = await startPgWireCounter({ host: upstream.hostname, port: Number(upstream.port || 5432) });
  const proxied = new URL(target.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(counter.port);
  const server = await serve(target.dir, proxied.toString());
  try {
    await hammerCreates(server.origin, target, 'spread', 1, options.connections);
    const before = counter.counts();
    const r = await hammerCreates(server.origin, target, 'spread', 2, options.connections);
    const after = counter.counts();
    const creates = r.rps * 2;
    return {
      statements: Math.round(((after.statements - before.statements) / creates) * 10) / 10,
      roundTrips: Math.round(((after.roundTrips - before.roundTrips) / creates) * 10) / 10,
    };
  } finally {
    await server.stop();
    await counter.close();
  }
}

async function profileOurs(target: Target, dialect: BenchDialect, options: WritesOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'writes-profile-'));
  const server = await serve(target.dir, target.url, { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir], env: { WORKERS: '1' } });
  let creates: number;
  try {
    options.log(`  ${dialect} writes: CPU profile of a spread run, ${target.name}`);
    creates = (await hammerCreates(server.origin, target, 'spread', options.seconds, options.connections)).rps * options.seconds;
  } finally {
    await server.stop();
  }
  // The main thread's profile (SQLite's reader threads write theirs beside it, numbered after it).
  const [file] = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const { busyMs, top } = topFunctions(join(dir, file), 20);
  const grouped = profileGroups(join(dir, file));
  options.log(`  profile kept in ${dir}`);
  return {
    profile: { busyMs, top: top.map((f) => ({ name: f.name, share: f.share })) },
    groups: { creates, busyMs: grouped.busyMs, groups: grouped.groups.map(({ group, ms }) => ({ group, ms })) },
  };
}

export async function measureWrites(dialect: BenchDialect, options: WritesOptions): Promise<WritesResult> {
  const { log } = options;
  const dirs: Array<[string, string]> = [['ours', resolve('.')], ...(options.against ? [['before', resolve(options.against)] as [string, string]] : [])];
  const targets: Target[] = [];
  const floorTargets: Target[] = [];
  try {
    for (const [name, dir] of dirs) {
      log(`  ${dialect} writes: preparing ${name} (${dir})`);
      targets.push(await prepareTarget(dialect, name, dir));
    }
    const ours = targets[0];
    // The floors write thousands of creates into the same count rows: on a database of their own,
    // so they do not leave ours' tables bigger and its hot rows' versions longer than before's.
    log(`  ${dialect} writes: preparing the floors' database`);
    const floorDb = await prepareTarget(dialect, 'floor', ours.dir);
    floorTargets.push(floorDb);
    const captured: CapturedCreate = await captureCreate(dialect, floorDb.url, floorDb.tenantId, floorDb.accounts[1]);
    const result: WritesResult = { dialect, connections: options.connections, seconds: options.seconds, load: '', targets: {}, plainInsert: [], sqlFloor: [], sqlFloorBefore0018: [], sqlFloorWithoutPairs: [], countedRows: captured.rows, waits: {} };
    for (const t of targets) {
      result.targets[t.name] = { spread: [], one: [] };
      if (dialect === 'postgres') {
        log(`  ${dialect} writes: ${t.name}, statements and round trips per create`);
        result.targets[t.name].wire = await wirePerCreate(t, options);
      }
    }
    const waits = { spread: new Map<string, number>(), one: new Map<string, number>() };
    const servers = new Map<string, RunningServer>();
    try {
      for (const t of targets) servers.set(t.name, await serve(t.dir, t.url));
      for (const t of targets) await hammerCreates(servers.get(t.name)!.origin, t, 'spread', 1, options.connections); // warm-up
      for (let round = 1; round <= options.rounds; round++) {
        for (const t of round % 2 ? targets : [...targets].reverse()) {
          for (const mode of ['spread', 'one'] as const) {
            log(`  ${dialect} writes: round ${round}, ${t.name}, ${mode}`);
            // Every target's waits are sampled (the sampler costs the machine alike); ours' are printed.
            result.targets[t.name][mode].push(await measuredRun(servers.get(t.name)!, t, dialect, mode, options, t === ours ? waits[mode] : new Map()));
          }
        }
        log(`  ${dialect} writes: round ${round}, plain INSERT transaction and the SQL floor`);
        result.plainInsert.push(await floorRate({ dialect, url: floorDb.url }, [captured.paymentInsert], captured, options.seconds, options.connections));
        // The slices' cost: the floor with and without migration 0018's slices, in alternating order.
        const floors = [
          async () => result.sqlFloor.push(await floorRate({ dialect, url: floorDb.url }, captured.statements, captured, options.seconds, options.connections)),
          async () => result.sqlFloorBefore0018.push(await floorRate({ dialect, url: floorDb.url }, captured.before0018, captured, options.seconds, options.connections)),
          async () => result.sqlFloorWithoutPairs.push(await floorRate({ dialect, url: floorDb.url }, captured.withoutPairs, captured, options.seconds, options.connections)),
        ];
        for (const floor of round % 2 ? floors : floors.reverse()) await floor();
      }
    } finally {
      for (const s of servers.values()) await s.stop();
    }
    for (const mode of ['spread', 'one'] as const) {
      const total = [...waits[mode].values()].reduce((a, b) => a + b, 0);
      result.waits[mode] = [...waits[mode].entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, n]) => [k, Math.round((n / total) * 1000) / 10]);
    }
    if (options.profile) {
      result.profileGroups = {};
      for (const t of targets) {
        const { profile, groups } = await profileOurs(t, dialect, options);
        if (t === ours) result.profile = profile;
        result.profileGroups[t.name] = groups;
      }
    }
    result.load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    return result;
  } finally {
    for (const t of [...targets, ...floorTargets]) await t.drop();
  }
}

/** CPU milliseconds per create, the median over the rounds: less swayed by other load on the machine than creates/s. */
const cpuPerCreate = (runs: Run[], of: 'serverCores' | 'databaseCores') => median(runs.map((x) => (x[of] * 1000) / x.rps)).toFixed(2);
const f0 = (x: number) => x.toFixed(0);

export function printWrites(r: WritesResult): void {
  console.log(`\n## ${r.dialect}: payment creates, ${r.connections} writers at once, ${r.seconds} s a run (load ${r.load})\n`);
  console.log('| target | run | creates/s (rounds) | median | p50 ms | p99 ms | errors | cores busy: machine / server / database | CPU ms per create: server / database |');
  console.log('|---|---|---|---:|---:|---:|---:|---|---|');
  for (const [name, t] of Object.entries(r.targets)) {
    for (const mode of ['spread', 'one'] as const) {
      const runs = t[mode];
      if (runs.length === 0) continue;
      const mid = runs.find((x) => x.rps === median(runs.map((y) => y.rps)))!;
      console.log(
        `| ${name} | ${mode === 'spread' ? `spread over ${ACCOUNTS} accounts` : 'all on one account'} | ${runs.map((x) => f0(x.rps)).join(', ')} | ${f0(mid.rps)} | ${mid.p50} | ${mid.p99} | ${runs.reduce((a, x) => a + x.errors, 0)} | ${mid.machineCores} / ${mid.serverCores} / ${mid.databaseCores} | ${cpuPerCreate(runs, 'serverCores')} / ${cpuPerCreate(runs, 'databaseCores')} |`,
      );
    }
  }
  console.log(`| plain INSERT transaction | | ${r.plainInsert.map(f0).join(', ')} | ${f0(median(r.plainInsert))} | | | | | |`);
  console.log(`| the service's write statements (${r.dialect === 'postgres' ? 'pgbench' : 'one connection, in-process'}) | | ${r.sqlFloor.map(f0).join(', ')} | ${f0(median(r.sqlFloor))} | | | | | |`);
  const { now, before0018, withoutPairs } = r.countedRows;
  console.log(
    `| the same with the counted rows of before migration 0018 (${before0018.counts} + ${before0018.buckets} rows, not ${now.counts} + ${now.buckets}) | | ${r.sqlFloorBefore0018.map(f0).join(', ')} | ${f0(median(r.sqlFloorBefore0018))} | | | | | |`,
  );
  console.log(
    `| the same without the pairs' bucket rows (migration 0031: ${withoutPairs.buckets} bucket rows, not ${now.buckets}) | | ${r.sqlFloorWithoutPairs.map(f0).join(', ')} | ${f0(median(r.sqlFloorWithoutPairs))} | | | | | |`,
  );
  console.log('\nRatios, round by round (median):\n');
  const slicesCost = r.sqlFloor.map((x, i) => x / r.sqlFloorBefore0018[i]);
  console.log(`- the SQL floor with migration 0018's slices ÷ without: ${median(slicesCost).toFixed(2)}× (rounds ${slicesCost.map((x) => x.toFixed(2)).join(', ')})`);
  const pairsCost = r.sqlFloor.map((x, i) => x / r.sqlFloorWithoutPairs[i]);
  console.log(`- the SQL floor with the pairs' buckets ÷ without: ${median(pairsCost).toFixed(2)}× (rounds ${pairsCost.map((x) => x.toFixed(2)).join(', ')})`);
  for (const [name, t] of Object.entries(r.targets)) {
    for (const mode of ['spread', 'one'] as const) {
      const vsInsert = t[mode].map((x, i) => x.rps / r.plainInsert[i]);
      const vsFloor = t[mode].map((x, i) => x.rps / r.sqlFloor[i]);
      console.log(`- ${name}, ${mode}: ÷ plain INSERT ${median(vsInsert).toFixed(3)}×, ÷ SQL floor ${median(vsFloor).toFixed(2)}×`);
    }
  }
  if (r.targets.before) {
    for (const mode of ['spread', 'one'] as const) {
      const ratios = r.targets.ours[mode].map((x, i) => x.rps / r.targets.before[mode][i].rps);
      console.log(`- ours ÷ before, ${mode}: ${median(ratios).toFixed(2)}× (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
    }
  }
  for (const [name, t] of Object.entries(r.targets)) {
    if (t.wire) console.log(`- ${name}: ${t.wire.statements} statements, ${t.wire.roundTrips} round trips to PostgreSQL per create (whole request)`);
  }
  for (const [mode, list] of Object.entries(r.waits)) {
    if (list.length === 0) continue;
    console.log(`\nWhat ours' connections were doing while writing (${mode}), share of samples:\n`);
    for (const [k, share] of list) console.log(`- ${share} % ${k}`);
  }
  if (r.profile) {
    console.log(`\nCPU profile of ours (spread run, busy ${(r.profile.busyMs / 1000).toFixed(1)} s), top self time:\n`);
    for (const f of r.profile.top) console.log(`- ${(f.share * 100).toFixed(1)} % \`${f.name}\``);
  }
  if (r.profileGroups) {
    const names = Object.keys(r.profileGroups);
    const perCreate = (name: string, group: string) => {
      const p = r.profileGroups![name];
      const ms = group === 'all' ? p.busyMs : (p.groups.find((g) => g.group === group)?.ms ?? 0);
      return ((ms / p.creates) * 1000).toFixed(0);
    };
    const groups = [...new Set(names.flatMap((n) => r.profileGroups![n].groups.map((g) => g.group)))];
    console.log(`\nThe profiled spread runs' CPU per create by group, µs (profile/profileGroups.ts; the server's start left out):\n`);
    console.log(`| group | ${names.join(' | ')} |`);
    console.log(`|---|${names.map(() => '---:').join('|')}|`);
    for (const g of groups) console.log(`| ${g} | ${names.map((n) => perCreate(n, g)).join(' | ')} |`);
    console.log(`| all (busy) | ${names.map((n) => perCreate(n, 'all')).join(' | ')} |`);
  }
}
