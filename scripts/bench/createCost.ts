/**
 * What a payment create costs the database, in creates per second: `node scripts/bench/createCost.ts
 * sqlite|postgres [seconds] [in-flight]`. An app in this process (app.inject, no network) on a
 * fresh database (a temp SQLite file, or a new schema in postgres://postgres@127.0.0.1:5432/test),
 * one tenant with 20 accounts, then payments created back to back with `in-flight` at once for
 * `seconds`. Used to compare what maintained counts cost a write (docs/performance.md#counted-slices):
 * run it on two checkouts side by side, alternating.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { buildApp } from '../../src/http/buildApp.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';

const [dialect = 'sqlite', secondsText = '10', inFlightText = '4'] = process.argv.slice(2);
const seconds = Number(secondsText);
const inFlight = Number(inFlightText);
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

let url: string;
let cleanup: () => Promise<void>;
let searchPath: string | undefined;
if (dialect === 'postgres') {
  searchPath = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${searchPath}`);
  url = PG_URL;
  cleanup = async () => {
    await admin.query(`drop schema ${searchPath} cascade`);
    await admin.end();
  };
} else {
  const dir = mkdtempSync(join(tmpdir(), 'create-cost-'));
  url = `sqlite://${join(dir, 'db.sqlite')}`;
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
}
const db = openDatabase(url, searchPath ? { searchPath } : {});
await migrateToLatest(db.kysely, db.dialect);
const app = await buildApp({
  config: { trustProxy: false, logLevel: 'silent', cardFingerprintSecret: 'bench', limits: { rateLimitPerKey: 0, rateLimitPerIp: 0 }, webhooks: { sender: false } },
  db,
  logger: false,
} as Parameters<typeof buildApp>[0]);
const tenant = await findOrCreateTenant(db.kysely, 'cost');
const key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
const headers = { authorization: `Bearer ${key}` };
const accounts: Array<{ id: string; currency: string }> = [];
for (let i = 0; i < 20; i++) {
  const currency = ['EUR', 'USD', 'GBP'][i % 3];
  const r = await app.inject({ method: 'POST', url: '/v3/accounts', headers, payload: { name: `A ${i}`, email: `a${i}@example.com`, currency } });
  accounts.push({ id: r.json().data?.id ?? r.json().id, currency });
}
const cards = ['4242424242424242', '5555555555554444', '378282246310005'];
let created = 0;
let failed = 0;
const end = Date.now() + seconds * 1000;
const started = Date.now();
await Promise.all(
  Array.from({ length: inFlight }, async (_, lane) => {
    for (let i = lane; Date.now() < end; i += inFlight) {
      const account = accounts[i % accounts.length];
      const number = cards[i % cards.length];
      const r = await app.inject({
        method: 'POST',
        url: '/v3/payments',
        headers,
        payload: {
          account_id: account.id,
          amount: 100 + ((i * 7919) % 200_000),
          currency: account.currency,
          capture: i % 2 === 0,
          card: { number, exp_month: 12, exp_year: 2031, cvc: number.startsWith('37') ? '1234' : '123' },
        },
      });
      if (r.statusCode === 201) created++;
      else failed++;
    }
  }),
);
const elapsed = (Date.now() - started) / 1000;
console.log(JSON.stringify({ dialect, creates: created, failed, seconds: Number(elapsed.toFixed(1)), createsPerSecond: Number((created / elapsed).toFixed(1)) }));
await app.close();
await db.close();
await cleanup();
