import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentsClient, type Payment } from '@payments/client';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { seed } from '../support/seedHelpers.ts';

describe('the client’s exports: every record of a list from one request', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let client: PaymentsClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'acme', 5, 2500);
    const tenant = await findOrCreateTenant(database.db.kysely, 'acme');
    server = await startServer({ ...database.env, LOG_LEVEL: 'warn' });
    client = new PaymentsClient({ baseUrl: server.url, apiKey: await createApiKey(database.db.kysely, tenant.id, ['read']) });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('yields, with for await, exactly what walking the list yields', async () => {
    const params = { filter: { status: ['succeeded', 'refunded'] as Array<Payment['status']> }, sort: '-amount' as const };
    const exported: Payment[] = [];
    for await (const payment of client.payments.export(params)) exported.push(payment);
    const walked: Payment[] = [];
    for await (const payment of client.payments.list({ ...params, perPage: 5000 })) walked.push(payment);
    expect(exported.length).toBeGreaterThan(0);
    expect(exported).toEqual(walked);
  });

  it('exports accounts and one account’s payments, and stops cleanly when the loop breaks', async () => {
    const accounts = [];
    for await (const account of client.accounts.export({ sort: 'created_at' })) accounts.push(account);
    expect(accounts).toHaveLength(5);
    let taken = 0;
    for await (const payment of client.accounts.exportPayments(accounts[0].id)) {
      expect(payment.account_id).toBe(accounts[0].id);
      if (++taken === 3) break;
    }
    expect(taken).toBe(3);
  });
});
