import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKeysByPrefix, revokeKey } from '../../src/auth/keyLifecycle.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import type { Scope } from '../../src/auth/apiKey.ts';
import { forRequest, recordSentStatements } from '../support/sentStatements.ts';
import { seed } from '../support/seedHelpers.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

/**
 * A list request on a key its instance found valid before: on PostgreSQL the statement that reads
 * the page checks the key too (src/auth/knownKeys.ts), and every answer is the one a lookup first
 * gives — on any instance, right after a revocation or an expiry on another.
 */
describe('a list request checks its key in the statement that reads the page', () => {
  let database: TestDatabase;
  /** Two instances on one database: what one is told, the other must honour on its next request. */
  let first: FastifyInstance;
  let second: FastifyInstance;
  const tenants: Record<string, { id: string; accounts: number; payments: number; account: string }> = {};

  const newKey = async (tenant: string, scopes: Scope[] = ['read']) => createApiKey(database.db.kysely, tenants[tenant].id, scopes);
  const keyRow = async (key: string) => (await findKeysByPrefix(database.db.kysely, key.slice(0, 10)))[0];
  const get = async (app: FastifyInstance, url: string, key: string) => {
    const response = await app.inject({ url, headers: { authorization: `Bearer ${key}` } });
    const body = response.json();
    return { status: response.statusCode, detail: body.detail as string | undefined, type: body.type as string | undefined, body };
  };
  /** What an instance that never saw the key answers: the lookup first, as every request did before. */
  const freshAnswer = async (url: string, key: string) => {
    const fresh = await appOn(database);
    try {
      return await get(fresh, url, key);
    } finally {
      await fresh.close();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    for (const [name, accounts, payments] of [
      ['acme', 4, 30],
      ['zeta', 6, 50],
    ] as const) {
      await seed(database.db, name, accounts, payments);
      const id = (await findOrCreateTenant(database.db.kysely, name)).id;
      const account = (await database.db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', id).orderBy('id').executeTakeFirstOrThrow()).id;
      tenants[name] = { id, accounts, payments, account };
    }
    first = await appOn(database);
    second = await appOn(database);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
  });

  it.runIf(TEST_DIALECT === 'postgres')(
    'sends one statement per list request on PostgreSQL once the instance knows the key: the key, the page and its total',
    async () => {
      const key = await newKey('acme');
      const lastUsed = async () =>
        (await database.db.kysely.selectFrom('api_keys').select('last_used_at').where('key_prefix', '=', key.slice(0, 10)).executeTakeFirstOrThrow())
          .last_used_at;
      expect((await get(first, '/v3/payments', key)).status).toBe(200);
      // The first request's use is recorded in the background: waited for, so nothing of it is counted below.
      await expect.poll(lastUsed).not.toBeNull();
      const recorder = recordSentStatements();
      try {
        for (const [url, statements] of [
          ['/v3/payments', 1],
          ['/v3/accounts?per_page=2&sort=-created_at', 1],
          ['/v3/payments?filter[status]=succeeded&per_page=3', 1],
          ['/v3/events', 1],
          // The account is checked first (its 404), then the page with the key: two.
          [`/v3/accounts/${tenants.acme.account}/payments`, 2],
        ] as const) {
          recorder.statements.length = 0;
          const answer = await forRequest(url, () => get(first, url, key));
          expect(answer.status, url).toBe(200);
          expect(
            recorder.statements.map((s) => s.text).filter((text) => !text.startsWith('update "api_keys"')),
            url,
          ).toHaveLength(statements);
          const last = recorder.statements.at(-1);
          expect(last?.text, url).toContain('"api_keys"');
          expect(last?.values, url).toContain(tenants.acme.id);
        }
      } finally {
        recorder.stop();
      }
    },
  );

  it('refuses a key revoked on one instance on the very next list request on the other, as a lookup would', async () => {
    const key = await newKey('acme');
    for (const app of [first, second]) expect((await get(app, '/v3/accounts', key)).status).toBe(200);
    await revokeKey(database.db.kysely, (await keyRow(key)).id, new Date());
    for (const url of ['/v3/accounts', '/v3/payments?per_page=5', `/v3/accounts/${tenants.acme.account}/payments`, '/v3/events']) {
      const refused = await get(second, url, key);
      expect(refused.status, url).toBe(401);
      expect(refused.detail, url).toMatch(/^The API key was revoked at \d{4}-.*\.$/);
      expect(refused.body, url).toEqual((await freshAnswer(url, key)).body);
    }
  });

  it('answers a revoked key with its 401 where the request would have failed otherwise or found nothing: a bad query, an unknown account, a past-the-end page', async () => {
    for (const [url, before] of [
      ['/v3/payments?page=99', 200],
      ['/v3/payments?sort=colour', 422],
      ['/v3/accounts/acc_00000000000000000000000000/payments', 404],
      [`/v3/accounts/${tenants.acme.account}/payments`, 404],
    ] as const) {
      // A key of its own per request: a refused key is forgotten, and its next request looks it up first.
      const key = await newKey('zeta');
      for (const app of [first, second]) expect((await get(app, '/v3/payments', key)).status).toBe(200);
      expect((await get(second, url, key)).status, url).toBe(before);
      await revokeKey(database.db.kysely, (await keyRow(key)).id, new Date());
      const refused = await get(second, url, key);
      expect(refused.status, url).toBe(401);
      expect(refused.detail, url).toMatch(/^The API key was revoked at /);
    }
  });

  it('refuses a key that expired since the instance last saw it with the expiry problem, naming a rotation', async () => {
    const key = await newKey('acme');
    const rotated = await newKey('zeta');
    for (const k of [key, rotated]) expect((await get(second, '/v3/payments', k)).status).toBe(200);
    const past = new Date(Date.now() - 1000).toISOString();
    await database.db.kysely.updateTable('api_keys').set({ expires_at: past }).where('key_prefix', '=', key.slice(0, 10)).execute();
    await database.db.kysely
      .updateTable('api_keys')
      .set({ expires_at: past, replaced_by: 'apk_xxxxxx' })
      .where('key_prefix', '=', rotated.slice(0, 10))
      .execute();
    const expired = await get(second, '/v3/payments', key);
    expect(expired.status).toBe(401);
    expect(expired.detail).toMatch(/^The API key expired at \d{4}-.*\.$/);
    expect(expired.body).toEqual((await freshAnswer('/v3/payments', key)).body);
    const wasRotated = await get(second, '/v3/accounts', rotated);
    expect(wasRotated.status).toBe(401);
    expect(wasRotated.detail).toMatch(/It was rotated: use the new key \(keys list names it\)\.$/);
  });

  it('answers a key without the read scope 403 on every list, known to the instance or not', async () => {
    const key = await newKey('acme', ['write']);
    // The instance knows the key from a write (refused for its body, after the key was found valid).
    const write = await second.inject({ method: 'POST', url: '/v3/payments', headers: { authorization: `Bearer ${key}` }, payload: {} });
    expect(write.statusCode).toBe(422);
    for (const url of ['/v3/payments', '/v3/accounts', `/v3/accounts/${tenants.acme.account}/payments`]) {
      const refused = await get(second, url, key);
      expect(refused.status, url).toBe(403);
      expect(refused.detail, url).toBe('This API key lacks the read scope.');
      expect(refused.body, url).toEqual((await freshAnswer(url, key)).body);
    }
  });

  it('keeps tenants apart: model-based, list requests on two instances interleaved with keys made, revoked and expired', async () => {
    type KeyModel = { key: string; tenant: 'acme' | 'zeta'; scopes: Scope[]; state: 'active' | 'revoked' | 'expired' };
    type Model = { keys: KeyModel[] };
    type Real = { apps: FastifyInstance[] };
    const urls = ['/v3/payments', '/v3/accounts', '/v3/accounts/:account/payments'] as const;
    const expected = (k: KeyModel, url: (typeof urls)[number]) => {
      if (k.state !== 'active') return { status: 401 };
      if (!k.scopes.includes('read')) return { status: 403 };
      const tenant = tenants[k.tenant];
      return { status: 200, total: url === '/v3/accounts' ? tenant.accounts : url === '/v3/payments' ? tenant.payments : undefined };
    };
    const request = fc.tuple(fc.nat(), fc.nat(1), fc.constantFrom(...urls)).map(([i, instance, url]) => ({
      check: (model: Readonly<Model>) => model.keys.length > 0,
      async run(model: Model, real: Real) {
        const k = model.keys[i % model.keys.length];
        const path = url.replace(':account', tenants[k.tenant].account);
        const answer = await get(real.apps[instance], path, k.key);
        const want = expected(k, url);
        expect(answer.status, `${path} ${k.tenant} ${k.state} ${k.scopes}`).toBe(want.status);
        if (want.status !== 200) return;
        if (want.total !== undefined) expect(answer.body.meta.total).toBe(want.total);
        // Every record is the key's tenant's: its accounts' ids, never the other's.
        const own = await database.db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenants[k.tenant].id).execute();
        const ownIds = new Set(own.map((a) => a.id));
        for (const record of answer.body.data) expect(ownIds.has(url === '/v3/accounts' ? record.id : record.account_id)).toBe(true);
      },
      toString: () => `GET ${url} on ${instance ? 'second' : 'first'} with #${i}`,
    }));
    const commands = [
      fc
        .record({ tenant: fc.constantFrom('acme' as const, 'zeta' as const), scopes: fc.constantFrom<Scope[]>(['read'], ['write'], ['read', 'write']) })
        .map(({ tenant, scopes }) => ({
          check: () => true,
          async run(model: Model) {
            model.keys.push({ key: await newKey(tenant, scopes), tenant, scopes, state: 'active' });
          },
          toString: () => `key ${tenant} ${scopes}`,
        })),
      fc.tuple(fc.nat(), fc.constantFrom('revoked' as const, 'expired' as const)).map(([i, state]) => ({
        check: (model: Readonly<Model>) => model.keys.length > 0,
        async run(model: Model) {
          const k = model.keys[i % model.keys.length];
          if (k.state !== 'active') return;
          const id = (await keyRow(k.key)).id;
          if (state === 'revoked') await revokeKey(database.db.kysely, id, new Date());
          else
            await database.db.kysely
              .updateTable('api_keys')
              .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
              .where('id', '=', id)
              .execute();
          k.state = state;
        },
        toString: () => `${state} #${i}`,
      })),
      // Requests three times as often as keys change: a key is mostly known to an instance when it changes.
      request,
      request,
      request,
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (cmds) => {
        await fc.asyncModelRun(() => ({ model: { keys: [] } as Model, real: { apps: [first, second] } }), cmds);
      }),
      { numRuns: 40 },
    );
  });
});
