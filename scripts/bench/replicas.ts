import pg from 'pg';
import { sql } from 'kysely';
import { startReplicatedPostgres } from '../../test/support/replicatedPostgres.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { openReadRouting } from '../../src/db/openReadRouting.ts';
import { writerAccounts } from './accounts.ts';
import { BENCH_TENANT, cli } from './datasets.ts';
import { getJson, hammer, type Measured } from './scenarios.ts';
import { startServer, type RunningServer } from './server.ts';
import { startWriter, type WriterStats } from './writer.ts';
import { median } from './median.ts';

export interface ReplicasResult {
  payments: number;
  rounds: number;
  /** Per case: req/s of each round, the primary alone and with the replica, alternated. */
  cases: Array<{ name: string; alone: Measured[]; replica: Measured[] }>;
  /** readerFor() when the replica is known to be far enough (no question asked), µs per call. */
  chooseUs: number;
  /** The question of how far a replica is, one round trip, ms (median). */
  askMs: number;
  /** The key query alone and with the tenant's write position beside it, µs (median of rounds). */
  keyQueryUs: { plain: number; withPosition: number };
  /** The writer alone against each server, alternated rounds: what recording the position costs a write. */
  writes: { alone: WriterStats[]; replica: WriterStats[] };
  /** Under the writer, page 1 hammered by the writer's own tenant through the server with the replica. */
  underWriter: { measured: Measured; reads: Record<string, number>; lagMs: { p50: number; p99: number; max: number }; lagBytes: { p50: number; max: number } };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

/** `db_reads_total` by `target/reason`. */
async function readCounts(origin: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, target, reason, n] of text.matchAll(/^db_reads_total\{target="([^"]+)",reason="([^"]+)"\} (\d+)/gm)) counts[`${target} ${reason}`] = Number(n);
  return counts;
}

/**
 * `--only replicas`: a primary and a synchronous streaming standby of their own (loopback ports,
 * test/support/replicatedPostgres.ts), one dataset seeded on the primary, and two servers side by
 * side: one on the primary alone, one reading from the standby (DATABASE_REPLICA_URLS). The list
 * cases are hammered on each, alternating, `rounds` times. Then what the replica check costs, and
 * the writer (50 creates + 50 captures/s) with page 1 hammered by the same tenant meanwhile, the
 * standby's replay lag sampled on the primary (pg_stat_replication) every 20 ms.
 * Everything runs on one machine: a replica here shares the cores of the primary and the servers,
 * so req/s say what the routing costs and where reads go, not what a second machine would add.
 */
export async function measureReplicas(shape: { payments: number; seconds: number; connections: number; rounds: number; log: (line: string) => void }): Promise<ReplicasResult> {
  const { payments, seconds, connections, rounds, log } = shape;
  log(`replicas: building a primary and a standby, ${payments.toLocaleString('en')} payments`);
  const cluster = await startReplicatedPostgres();
  const servers: RunningServer[] = [];
  try {
    const url = cluster.primary.url;
    const db = openDatabase(url, { poolMax: 2 });
    try {
      await migrateToLatest(db.kysely, db.dialect);
    } finally {
      await db.close();
    }
    const accounts = Math.max(10, Math.min(1000, Math.round(payments / 1000)));
    await cli(url, 'seed', '--tenant', BENCH_TENANT, '--accounts', String(accounts), '--payments', String(payments), '--seed', 'bench', '--batch-size', '100000');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('vacuum analyze');
    const readKey = (await cli(url, 'keys', 'create', '--tenant', BENCH_TENANT, '--scopes', 'read')).stdout.trim();
    const writeKey = (await cli(url, 'keys', 'create', '--tenant', BENCH_TENANT, '--scopes', 'read,write')).stdout.trim();
    const alone = await startServer(url);
    servers.push(alone);
    const replica = await startServer(url, { env: { DATABASE_REPLICA_URLS: cluster.standby.url } });
    servers.push(replica);

    const base = `${alone.origin}/v3`;
    const first = await getJson(`${base}/payments?per_page=10`, readKey);
    const deep = Math.max(2, Math.floor(first.meta.last_page * 0.9));
    const paths: Record<string, string> = {
      'page 1': '/v3/payments?per_page=10',
      'page at 90% depth': `/v3/payments?per_page=10&page=${deep}`,
      'one payment': `/v3/payments/${first.data[0].id}`,
      'per_page=1000': '/v3/payments?per_page=1000',
    };
    const cases: ReplicasResult['cases'] = [];
    for (const [name, path] of Object.entries(paths)) {
      const result = { name, alone: [] as Measured[], replica: [] as Measured[] };
      for (let round = 0; round < rounds; round++) {
        log(`  replicas: ${name}, round ${round + 1}`);
        // Alternate which goes first, so neither always runs on a warmer machine.
        const order = round % 2 === 0 ? (['alone', 'replica'] as const) : (['replica', 'alone'] as const);
        for (const which of order) result[which].push(await hammer(`${(which === 'alone' ? alone : replica).origin}${path}`, readKey, seconds, connections));
      }
      cases.push(result);
    }
    const readsAfterCases = await readCounts(replica.origin);
    log(`  replicas: reads by target after the cases ${JSON.stringify(readsAfterCases)}`);

    // The check in-process: the choice when the replica is known far enough, and the question.
    const primaryDb = openDatabase(url, { poolMax: 2 });
    const routing = openReadRouting(primaryDb, { primary: url, replicas: [cluster.standby.url] }, {}, 60_000);
    await routing.start();
    const calls = 200_000;
    let began = performance.now();
    for (let i = 0; i < calls; i++) await routing.readerFor(0);
    const chooseUs = ((performance.now() - began) * 1000) / calls;
    const asks: number[] = [];
    for (let i = 0; i < 300; i++) {
      began = performance.now();
      await (routing.replicas[0] as NonNullable<(typeof routing.replicas)[0]>).ask();
      asks.push(performance.now() - began);
    }
    // The key query with and without the position beside it, alternated in rounds.
    const { rows } = await admin.query<{ key_hash: string }>('select key_hash from api_keys limit 1');
    const hash = rows[0]?.key_hash as string;
    const plainSql = sql`select id, tenant_id, scopes, key_hash, revoked_at, expires_at, last_used_at, replaced_by from api_keys where key_hash = ${hash}`;
    const withSql = sql`select id, tenant_id, scopes, key_hash, revoked_at, expires_at, last_used_at, replaced_by,
      (select position from tenant_write_positions p where p.tenant_id = api_keys.tenant_id) as written_up_to from api_keys where key_hash = ${hash}`;
    const plain: number[] = [];
    const withPosition: number[] = [];
    await sql`insert into tenant_write_positions (tenant_id, position) select tenant_id, 1 from api_keys limit 1 on conflict do nothing`.execute(primaryDb.kysely);
    for (let round = 0; round < 20; round++) {
      for (const [statement, into] of [
        [plainSql, plain],
        [withSql, withPosition],
      ] as const) {
        const n = 500;
        began = performance.now();
        for (let i = 0; i < n; i++) await statement.execute(primaryDb.kysely);
        into.push(((performance.now() - began) * 1000) / n);
      }
    }
    await routing.close();
    await primaryDb.close();

    // Writes: the writer alone against each server (recording the position is one more statement per write).
    const writerAccountsList = await writerAccounts(`${alone.origin}/v3`, writeKey);
    const writeRun = async (origin: string) => {
      const writer = startWriter({ origin, key: writeKey, accounts: writerAccountsList, maxSeconds: seconds * 3 });
      await new Promise((resume) => setTimeout(resume, seconds * 1000));
      return writer.stop();
    };
    const writes: ReplicasResult['writes'] = { alone: [], replica: [] };
    for (let round = 0; round < rounds; round++) {
      log(`  replicas: the writer alone, round ${round + 1}`);
      const order = round % 2 === 0 ? (['alone', 'replica'] as const) : (['replica', 'alone'] as const);
      for (const which of order) writes[which].push(await writeRun((which === 'alone' ? alone : replica).origin));
    }

    // Under the writer: the writer's own tenant hammers page 1 through the server with the replica.
    log('  replicas: page 1 under the writer, lag sampled');
    const before = await readCounts(replica.origin);
    const lagMs: number[] = [];
    const lagBytes: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await admin.query<{ ms: number | null; bytes: string | null }>(
          `select extract(epoch from replay_lag) * 1000 as ms, (pg_current_wal_lsn() - replay_lsn)::bigint as bytes from pg_stat_replication`,
        );
        lagMs.push(Number(rows[0]?.ms ?? 0));
        lagBytes.push(Number(rows[0]?.bytes ?? 0));
        await new Promise((resume) => setTimeout(resume, 20));
      }
    })();
    const writer = startWriter({ origin: replica.origin, key: writeKey, accounts: writerAccountsList, maxSeconds: seconds * 3 });
    const measured = await hammer(`${replica.origin}/v3/payments?per_page=10`, writeKey, seconds, connections);
    await writer.stop();
    sampling = false;
    await sampler;
    const after = await readCounts(replica.origin);
    const reads: Record<string, number> = {};
    for (const [k, n] of Object.entries(after)) if (n - (before[k] ?? 0) > 0) reads[k] = n - (before[k] ?? 0);
    await admin.end();
    lagMs.sort((x, y) => x - y);
    lagBytes.sort((x, y) => x - y);
    return {
      payments,
      rounds,
      cases,
      chooseUs,
      askMs: median(asks),
      keyQueryUs: { plain: median(plain), withPosition: median(withPosition) },
      writes,
      underWriter: {
        measured,
        reads,
        lagMs: { p50: quantile(lagMs, 0.5), p99: quantile(lagMs, 0.99), max: lagMs.at(-1) ?? Number.NaN },
        lagBytes: { p50: quantile(lagBytes, 0.5), max: lagBytes.at(-1) ?? Number.NaN },
      },
    };
  } finally {
    for (const server of servers) await server.stop();
    await cluster.destroy();
  }
}

const fmt = (x: number, digits = 0) => x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function printReplicas(r: ReplicasResult): void {
  console.log(`\n### PostgreSQL ${fmt(r.payments)} payments: the primary alone and with one streaming replica (same machine)\n`);
  console.log(`req/s (median of ${r.rounds} alternated rounds) · p50 · p99 (ms) · errors.\n`);
  console.log('| case | primary alone | with the replica | with ÷ alone |');
  console.log('|---|---|---|---|');
  for (const c of r.cases) {
    const cell = (ms: Measured[]) => {
      const m = ms.find((x) => x.rps === median(ms.map((y) => y.rps))) as Measured;
      return `${fmt(m.rps)} · ${m.p50} · ${m.p99} · ${ms.reduce((n, x) => n + x.errors, 0)}`;
    };
    console.log(`| ${c.name} | ${cell(c.alone)} | ${cell(c.replica)} | ${fmt(median(c.replica.map((m) => m.rps)) / median(c.alone.map((m) => m.rps)), 2)} |`);
  }
  console.log(`\nThe check a read pays: choosing a replica known far enough ${fmt(r.chooseUs, 2)} µs in-process; asking a replica how far it is (only when it is remembered short of the tenant's position, at most once per 2 ms per replica) ${fmt(r.askMs, 2)} ms; the key query with the tenant's position beside it ${fmt(r.keyQueryUs.withPosition)} µs against ${fmt(r.keyQueryUs.plain)} µs without.`);
  const w = (runs: WriterStats[]) =>
    `write p50 ${fmt(median(runs.map((s) => s.latencyP50)), 1)} ms, p99 ${fmt(median(runs.map((s) => s.latencyP99)), 1)} ms (medians of ${runs.length} runs of 50 creates + 50 captures/s), ${runs.reduce((n, s) => n + s.createFailures + s.captureFailures, 0)} failures`;
  console.log(`\nThe writer alone: primary alone ${w(r.writes.alone)}; with the replica (each write also records its position) ${w(r.writes.replica)}; with ÷ alone (p50) ${fmt(median(r.writes.replica.map((s) => s.latencyP50)) / median(r.writes.alone.map((s) => s.latencyP50)), 2)}.`);
  const u = r.underWriter;
  console.log(
    `\nUnder the writer, page 1 by the writer's own tenant through the server with the replica: ${fmt(u.measured.rps)} req/s, p50 ${u.measured.p50} ms, p99 ${u.measured.p99} ms, ${u.measured.errors} errors; reads ${JSON.stringify(u.reads)}. Replay lag (pg_stat_replication.replay_lag): p50 ${fmt(u.lagMs.p50, 2)} ms, p99 ${fmt(u.lagMs.p99, 2)} ms, max ${fmt(u.lagMs.max, 2)} ms; WAL not yet replayed: p50 ${fmt(u.lagBytes.p50)} bytes, max ${fmt(u.lagBytes.max)} bytes.`,
  );
}
