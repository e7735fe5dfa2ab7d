import { readdirSync, readFileSync } from 'node:fs';
import { dirname, basename } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { CARDS } from '../support/cards.ts';

const NUMBERS = [CARDS.visa, CARDS.amex, CARDS.declined, CARDS.processingError, '5105105105105100', '4242424242424241'];
const CVCS = ['987', '6543'];

describe('card numbers and CVCs leave no trace: not in the database, not in the logs', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let apiKey: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    const tenant = await findOrCreateTenant(database.db.kysely, 'pci');
    apiKey = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    server = await startServer({ ...database.env, LOG_LEVEL: 'trace' });
  });
  afterAll(async () => {
    await server?.stop();
    await database.drop();
  });

  it('holds for good, declined, invalid and replayed card payments', async () => {
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const account = (await (await call('POST', '/v3/accounts', { name: 'PCI', email: 'pci@example.com', currency: 'USD' })).json()) as { data: { id: string } };
    for (const [i, number] of NUMBERS.entries()) {
      const cvc = number.startsWith('37') ? CVCS[1] : CVCS[0];
      const body = { account_id: account.data.id, amount: 100 + i, currency: 'USD', card: { number, exp_month: 1, exp_year: 2030, cvc } };
      await call('POST', '/v3/payments', body, { 'idempotency-key': `pci-${i}` });
      await call('POST', '/v3/payments', body, { 'idempotency-key': `pci-${i}` }); // replay
      await call('POST', '/v3/payments', { ...body, amount: 1 }, { 'idempotency-key': `pci-${i}` }); // conflicting reuse
      await call('POST', '/v3/payments', { ...body, currency: 'usd' }); // schema failure
      await call('POST', '/v3/payments', { ...body, card: { ...body.card, number: `${number} x` } }); // card failure
    }
    expect(await server.stop()).toBe(0);
    const created = await database.db.kysely.selectFrom('payments').select(['card_last4']).execute();
    expect(created.map((p) => p.card_last4).sort()).toEqual(['0002', '0005', '0119', '4242', '5100']);

    const logs = server.output();
    expect(logs.length).toBeGreaterThan(0);
    const stored =
      database.db.dialect === 'sqlite'
        ? sqliteFiles(database.url)
        : JSON.stringify(
            await Promise.all(
              ['accounts', 'payments', 'api_keys', 'idempotency_keys', 'tenants'].map(
                async (table) => (await sql`select row_to_json(t)::text as row from ${sql.table(table)} t`.execute(database.db.kysely)).rows,
              ),
            ),
          );
    for (const number of NUMBERS) {
      expect(logs).not.toContain(number);
      expect(stored).not.toContain(number);
      expect(logs).not.toContain(number.slice(0, 12)); // no partial PAN beyond last4 either
    }
    for (const cvc of CVCS) expect(stored).not.toMatch(new RegExp(`"cvc"\\s*:\\s*"${cvc}"`));
    expect(logs).not.toContain(apiKey);
    expect(stored).not.toContain(apiKey);
  });
});

/** The SQLite database file with its WAL and any other sidecar, as raw bytes (latin1). */
function sqliteFiles(url: string): string {
  const file = url.slice('sqlite:'.length);
  return readdirSync(dirname(file))
    .filter((name) => name.startsWith(basename(file)))
    .map((name) => readFileSync(`${dirname(file)}/${name}`).toString('latin1'))
    .join('\n');
}
