/**
 * The cost of events and webhooks (issue 17), one section per database of `npm run bench`
 * (`npm run bench -- --outbox-only` runs just this section; `--db` picks the databases):
 *
 * - writes: account creates per second through HTTP (app.inject, one at a time, so it is the
 *   write path alone) for a tenant with no webhook endpoint and for one with one enabled
 *   endpoint (its write also inserts a queued delivery; sender off), in alternating rounds on
 *   one fresh database, the median of the rounds' ratios printed: the target is a write no more
 *   than 10 % slower; the same by this process's CPU time per create, which other load on a
 *   shared machine sways less (on PostgreSQL it leaves out the server's own CPU);
 * - delivery: events per second the sender gets to one loopback receiver answering 204, for
 *   one endpoint's backlog (in order, one request at a time: its ceiling) and for ten endpoints'
 *   backlogs sent side by side (to the same receiver).
 *
 * A fresh SQLite file, or a fresh schema on BENCH_DATABASE_URL's PostgreSQL, dropped afterwards.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { buildApp } from '../../src/http/buildApp.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { startDeliverySender } from '../../src/webhooks/deliverySender.ts';
import { DEFAULT_WEBHOOK_SETTINGS } from '../../src/config/loadConfig.ts';
import type { BenchDialect } from './datasets.ts';
import { median } from './median.ts';

const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface OutboxResult {
  dialect: BenchDialect;
  createsPerRound: number;
  /** Creates per second of each round, without and with an endpoint. */
  without: number[];
  withOne: number[];
  /** Median over the rounds of with / without (1.00: no cost). */
  writeRatio: number;
  /** Median over the rounds of this process's CPU time per create, without / with (the database server's own excluded on PostgreSQL). */
  cpuRatio: number;
  delivery: Array<{ endpoints: number; events: number; seconds: number; perSecond: number }>;
}


async function scratchDatabase(dialect: BenchDialect): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-bench-'));
    const db = openDatabase(`sqlite:${join(dir, 'bench.sqlite')}`);
    return { db, drop: async () => (await db.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const schema = `bench_outbox_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query(`drop schema if exists ${schema} cascade; create schema ${schema}`);
  await admin.end();
  const db = openDatabase(PG_BASE, { searchPath: schema });
  return {
    db,
    async drop() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: PG_BASE });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}

export async function measureOutboxCost(dialect: BenchDialect, options: { creates?: number; rounds?: number; log?: (line: string) => void } = {}) {
  const { creates = 300, rounds = 11, log = () => {} } = options;
  const { db, drop } = await scratchDatabase(dialect);
  await migrateToLatest(db.kysely, db.dialect);
  const webhooks = { ...DEFAULT_WEBHOOK_SETTINGS, sender: false, allowPrivateTargets: true, pollMs: 10 };
  const app = await buildApp({
    config: { publicUrl: undefined, trustProxy: false, logLevel: 'silent', cardFingerprintSecret: 'bench', limits: { rateLimitPerKey: 0, rateLimitPerIp: 0 }, webhooks },
    db,
    logger: false,
  });
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    const merchant = async (tenant: string, endpoints: number) => {
      const { id } = await findOrCreateTenant(db.kysely, tenant);
      const headers = { authorization: `Bearer ${await createApiKey(db.kysely, id, ['read', 'write'])}` };
      for (let i = 0; i < endpoints; i++)
        await app.inject({ method: 'POST', url: '/v3/webhook_endpoints', headers, payload: { url: receiverUrl, enabled_events: ['*'] } });
      /** Creates `n` accounts; creates per second, and CPU ms of this process per create. */
      return async (n: number) => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        for (let i = 0; i < n; i++) {
          const r = await app.inject({ method: 'POST', url: '/v3/accounts', headers, payload: { name: `bench ${i}`, email: 'b@example.com', currency: 'EUR' } });
          if (r.statusCode !== 201) throw new Error(r.body);
        }
        const used = process.cpuUsage(cpu);
        return { perSecond: n / ((performance.now() - started) / 1000), cpuMs: (used.user + used.system) / 1000 / n };
      };
    };

    // Writes: one tenant without and one with an endpoint, alternating, after a warm-up of each.
    const plain = await merchant('bench-plain', 0);
    const hooked = await merchant('bench-hooked', 1);
    await plain(200);
    await hooked(200);
    const without: number[] = [];
    const withOne: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      log(`  ${dialect} outbox: writes, round ${round + 1} of ${rounds}`);
      const a = await plain(creates);
      const b = await hooked(creates);
      without.push(a.perSecond);
      withOne.push(b.perSecond);
      cpuRatios.push(a.cpuMs / b.cpuMs);
    }
    await db.kysely.deleteFrom('webhook_deliveries').execute(); // the write rounds' backlog is not the delivery's

    // Delivery: a backlog on one endpoint, then on ten, each sent by one sender until none is pending.
    const delivery: OutboxResult['delivery'] = [];
    for (const [endpoints, perEndpoint] of [
      [1, 2000],
      [10, 300],
    ]) {
      const tenants = await Promise.all(Array.from({ length: endpoints }, (_, i) => merchant(`bench-delivery-${endpoints}-${i}`, 1)));
      for (const write of tenants) await write(perEndpoint);
      log(`  ${dialect} outbox: delivering ${endpoints * perEndpoint} events to ${endpoints} endpoint(s)`);
      const pendingLeft = async () =>
        Number(
          (await db.kysely.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow()).n,
        );
      const sender = startDeliverySender(db, webhooks, { warn: (fields, message) => console.error(message, fields), info: () => {} });
      const started = performance.now();
      while ((await pendingLeft()) > 0) await new Promise((r) => setTimeout(r, 20));
      const seconds = (performance.now() - started) / 1000;
      await sender.stop();
      delivery.push({ endpoints, events: endpoints * perEndpoint, seconds, perSecond: (endpoints * perEndpoint) / seconds });
    }
    const ratios = without.map((w, i) => withOne[i] / w);
    return { dialect, createsPerRound: creates, without, withOne, writeRatio: median(ratios), cpuRatio: median(cpuRatios), delivery } satisfies OutboxResult;
  } finally {
    await app.close();
    receiver.close();
    await drop();
  }
}

export function printOutboxCost(r: OutboxResult) {
  const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(`\n### Events and webhooks: ${r.dialect}\n`);
  console.log(`Account creates per second, one at a time through HTTP, ${r.createsPerRound} per round, rounds alternating:\n`);
  console.log('| tenant | creates/s per round | median |');
  console.log('|---|---|---|');
  console.log(`| no webhook endpoint | ${f(r.without)} | ${median(r.without).toFixed(0)} |`);
  console.log(`| one enabled endpoint | ${f(r.withOne)} | ${median(r.withOne).toFixed(0)} |`);
  const slower = (1 - r.writeRatio) * 100;
  console.log(`\nWith an endpoint / without, median of the rounds' ratios: **${r.writeRatio.toFixed(3)}** (${slower >= 0 ? `${slower.toFixed(1)} % slower` : `${(-slower).toFixed(1)} % faster`}; target: at most 10 % slower)`);
  console.log(
    `The same by this process's CPU time per create (less swayed by other load; ${r.dialect === 'postgres' ? "the PostgreSQL server's own CPU not included" : 'all of the work'}): **${r.cpuRatio.toFixed(3)}**\n`,
  );
  console.log('| delivery to one loopback receiver | events | seconds | events/s |');
  console.log('|---|---|---|---|');
  for (const d of r.delivery)
    console.log(
      `| ${d.endpoints === 1 ? 'one endpoint (in order, one at a time)' : `${d.endpoints} endpoints side by side`} | ${d.events} | ${d.seconds.toFixed(1)} | ${d.perSecond.toFixed(0)} |`,
    );
}
