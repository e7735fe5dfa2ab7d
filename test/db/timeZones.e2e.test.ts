import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { timestamptzToIso } from '../../src/db/timestamptzText.ts';
import { seed } from '../support/seedHelpers.ts';
import { appOn } from '../support/testApp.ts';
import { TEST_DIALECT, TEST_PG_ADMIN_URL, TEST_PG_POOLER, TEST_PG_URL, type TestDatabase } from '../support/testDatabase.ts';

/** Zones with whole-hour, half-hour and negative half-hour offsets, with summer time in two of them. */
const ZONES = ['Europe/Berlin', 'Asia/Kolkata', 'America/St_Johns'];
const POOLERS = TEST_PG_POOLER === 'none' ? (['none', 'session', 'transaction'] as const) : ([TEST_PG_POOLER] as const);

const urlOf = (base: string, database: string) => {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
};

describe.runIf(TEST_DIALECT === 'postgres')('a PostgreSQL server whose time zone is not UTC', () => {
  const name = `tz_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  let key: string;
  let paymentId: string;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`create database ${name}`);
    const db = openDatabase(urlOf(TEST_PG_URL, name), { pooler: TEST_PG_POOLER });
    try {
      await migrateToLatest(db.kysely, db.dialect);
      const { tenantId } = await seed(db, 'zones', 3, 40);
      // A key that expires: its expiry is read and compared on every request.
      key = await createApiKey(db.kysely, tenantId, ['read', 'write'], new Date('2099-03-26T01:30:00.250Z'));
      paymentId = (await db.kysely.selectFrom('payments').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow()).id;
    } finally {
      await db.close();
    }
  });
  afterAll(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it("has its timestamps read as the instants they are, whatever the session's TimeZone", async () => {
    const db = openDatabase(urlOf(TEST_PG_URL, name), { pooler: TEST_PG_POOLER });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ZONES, 'UTC', 'Pacific/Chatham', 'America/Caracas'),
          fc.array(fc.integer({ min: Date.UTC(1800, 0, 1), max: Date.UTC(2200, 0, 1) }), { minLength: 1, maxLength: 20 }),
          async (zone, instants) => {
            const isos = instants.map((ms) => new Date(ms).toISOString());
            // PostgreSQL's own text for these instants in that zone (`::text`: not through our parser).
            const texts = await db.kysely.transaction().execute(async (trx) => {
              await sql`select set_config('TimeZone', ${zone}, true)`.execute(trx);
              const { rows } = await sql<{
                text: string;
              }>`select t::timestamptz::text as text from unnest(${isos}::text[]) with ordinality as u(t, i) order by i`.execute(trx);
              return rows.map((r) => r.text);
            });
            expect(texts.map(timestamptzToIso)).toEqual(isos);
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      await db.close();
    }
  });

  it('answers every request with the same bytes as at UTC, in each zone and behind each kind of pooler', async () => {
    const urls = [
      '/v3/payments?per_page=7&sort=-created_at',
      `/v3/payments?filter[created_at][gte]=2026-06-01T00:00:00Z&filter[created_at][lt]=2026-10-01T00:00:00Z&per_page=5&page=2`,
      `/v3/payments/${paymentId}`,
      '/v3/accounts?per_page=3',
      '/v3/events?per_page=3',
    ];
    const answersAt = async (zone: string, pooler: (typeof POOLERS)[number]) => {
      await admin.query(`alter database ${name} set timezone = '${zone}'`);
      const db = openDatabase(urlOf(TEST_PG_URL, name), { pooler, poolMax: 2 });
      const app = await appOn({ db } as TestDatabase);
      try {
        const { rows } = await sql<{ zone: string }>`select current_setting('TimeZone') as zone`.execute(db.kysely);
        expect(rows[0].zone).toBe('UTC'); // ours; the parser reads any other too (above)
        const bodies: string[] = [];
        for (const url of urls) {
          const response = await app.inject({ url, headers: { authorization: `Bearer ${key}` } });
          expect(response.statusCode, `${url} at ${zone} behind ${pooler}: ${response.body}`).toBe(200);
          bodies.push(response.body);
        }
        const exported = await app.inject({ url: '/v3/payments/export', headers: { authorization: `Bearer ${key}` } });
        expect(exported.statusCode).toBe(200);
        const snapshotAt = Date.parse(String(exported.headers['x-export-snapshot']));
        expect(Math.abs(snapshotAt - Date.now())).toBeLessThan(60_000);
        bodies.push(exported.body);
        return bodies;
      } finally {
        await app.close();
        await db.close();
      }
    };
    const atUtc = await answersAt('UTC', POOLERS[0]);
    for (const zone of ZONES) {
      for (const pooler of POOLERS) expect(await answersAt(zone, pooler)).toEqual(atUtc);
    }
  });
});
