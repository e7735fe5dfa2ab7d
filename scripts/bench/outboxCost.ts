/**
 * The cost of events and webhooks on writes (issue 17): account creates per second through HTTP
 * (app.inject, one at a time, so it is the write path alone) with no webhook endpoint and with
 * one enabled endpoint (a delivery row per event, sender off), then delivery throughput: events
 * per second the sender gets to one loopback receiver answering 204.
 *
 *   node scripts/bench/outboxCost.ts [DATABASE_URL] [creates]   (default: a fresh SQLite file, 2000)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { buildApp } from '../../src/http/buildApp.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { startDeliverySender } from '../../src/webhooks/deliverySender.ts';
import { DEFAULT_WEBHOOK_SETTINGS } from '../../src/config/loadConfig.ts';

const scratch = mkdtempSync(join(tmpdir(), 'outbox-bench-'));
const url = process.argv[2] || `sqlite:${join(scratch, 'bench.sqlite')}`;
const creates = Number(process.argv[3] ?? 2000);
const db = openDatabase(url);
await migrateToLatest(db.kysely, db.dialect);
const webhooks = { ...DEFAULT_WEBHOOK_SETTINGS, sender: false, allowPrivateTargets: true, pollMs: 10 };
const app = await buildApp({ config: { publicUrl: undefined, trustProxy: false, logLevel: 'silent', cardFingerprintSecret: 'bench', limits: { rateLimitPerKey: 0, rateLimitPerIp: 0 }, webhooks }, db, logger: false });

const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

async function createsPerSecond(tenant: string, withEndpoint: boolean): Promise<number> {
  const { id } = await findOrCreateTenant(db.kysely, tenant);
  const headers = { authorization: `Bearer ${await createApiKey(db.kysely, id, ['read', 'write'])}` };
  if (withEndpoint) await app.inject({ method: 'POST', url: '/v3/webhook_endpoints', headers, payload: { url: receiverUrl, enabled_events: ['*'] } });
  for (let i = 0; i < 200; i++) await app.inject({ method: 'POST', url: '/v3/accounts', headers, payload: { name: `warm ${i}`, email: 'w@example.com', currency: 'EUR' } });
  const started = performance.now();
  for (let i = 0; i < creates; i++) {
    const r = await app.inject({ method: 'POST', url: '/v3/accounts', headers, payload: { name: `bench ${i}`, email: 'b@example.com', currency: 'EUR' } });
    if (r.statusCode !== 201) throw new Error(r.body);
  }
  return creates / ((performance.now() - started) / 1000);
}

// Alternate the two, twice, and keep each one's better run: the machine is shared.
const without = Math.max(await createsPerSecond('bench-plain-1', false), await createsPerSecond('bench-plain-2', false));
const withOne = Math.max(await createsPerSecond('bench-hooked-1', true), await createsPerSecond('bench-hooked-2', true));
const pending = Number((await db.kysely.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
const sender = startDeliverySender(db, webhooks, (err) => console.error(err));
const started = performance.now();
// The sender claims on its own timer; done when no delivery is pending.
const pendingLeft = async () =>
  Number((await db.kysely.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow()).n);
while ((await pendingLeft()) > 0) await new Promise((r) => setTimeout(r, 20));
const deliverySeconds = (performance.now() - started) / 1000;
await sender.stop();

console.log(`${db.dialect}, ${creates} creates per run`);
console.log(`creates/s without an endpoint: ${without.toFixed(0)}`);
console.log(`creates/s with one endpoint:   ${withOne.toFixed(0)} (${(((withOne - without) / without) * 100).toFixed(1)} %)`);
console.log(`delivery: ${pending} events in ${deliverySeconds.toFixed(1)} s = ${(pending / deliverySeconds).toFixed(0)} events/s to one loopback receiver`);
await app.close();
receiver.close();
await db.close();
rmSync(scratch, { recursive: true, force: true });
