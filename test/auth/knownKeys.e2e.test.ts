import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKeysByPrefix, revokeKey } from '../../src/auth/keyLifecycle.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import type { Scope } from '../../src/auth/apiKey.ts';
import { newId } from '../../src/core/resourceId.ts';
import { card } from '../support/cards.ts';
import { untilFolded } from '../support/foldAll.ts';
import { forRequest, recordSentStatements } from '../support/sentStatements.ts';
import { seed } from '../support/seedHelpers.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

/**
 * A list request or a create on a key its instance found valid before: on PostgreSQL the statement
 * that reads the page, or claims the create's Idempotency-Key, checks the key too
 * (src/auth/knownKeys.ts), and every answer is the one a lookup first gives, with nothing written
 * on a refused key — on any instance, right after a revocation or an expiry on another.
 */
describe('a request on a key its instance knows checks the key in its first statement (a page, a create)', () => {
  let database: TestDatabase;
  /** Two instances on one database: what one is told, the other must honour on its next request. */
  let first: FastifyInstance;
  let second: FastifyInstance;
  const tenants: Record<string, { id: string; accounts: number; payments: number; account: string }> = {};

  const newKey = async (tenant: string, scopes: Scope[] = ['read']) => createApiKey(database.db.kysely, tenants[tenant].id, scopes);
  const keyRow = async (key: string) => (await findKeysByPrefix(database.db.kysely, key.slice(0, 10)))[0];
  /** Revokes the key, or expires it a second ago. */
  const endKey = async (key: string, how: 'revoked' | 'expired') => {
    const id = (await keyRow(key)).id;
    if (how === 'revoked') await revokeKey(database.db.kysely, id, new Date());
    else
      await database.db.kysely
        .updateTable('api_keys')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', id)
        .execute();
  };
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
          // The account too: it is the tenant's, checked by the same statement (its 404 otherwise).
          [`/v3/accounts/${tenants.acme.account}/payments`, 1],
          [`/v3/accounts/${tenants.acme.account}/payments?filter[status]=succeeded&sort=-amount`, 1],
          [`/v3/accounts/${tenants.acme.account}/payments?page=999`, 1],
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

  /** The statements `send` sends (the background record of a key's use left out), and its answer; `label` names it. */
  const countedSend = async <A>(label: string, send: () => Promise<A>) => {
    const recorder = recordSentStatements();
    try {
      const answer = await forRequest(label, send);
      const sent = recorder.statements.filter((s) => !s.text.startsWith('update "api_keys"'));
      return { answer, statements: sent.map((s) => s.text), firstAfterBegin: sent[0]?.afterBegin, named: sent.map((s) => s.named) };
    } finally {
      recorder.stop();
    }
  };
  /** The statements `url` sends on `app`, and its answer. */
  const counted = (app: FastifyInstance, url: string, key: string) => countedSend(url, () => get(app, url, key));

  it.runIf(TEST_DIALECT === 'postgres')(
    "answers an unknown account and another tenant's account 404, as a lookup first does, from the statement that reads the page",
    async () => {
      const key = await newKey('acme');
      expect((await get(first, '/v3/payments', key)).status).toBe(200);
      for (const account of [newId('acc'), tenants.zeta.account]) {
        const url = `/v3/accounts/${account}/payments`;
        const { answer, statements } = await counted(first, url, key);
        expect(answer.status, url).toBe(404);
        expect(answer.detail, url).toBe(`No account ${account}.`);
        expect(answer.body, url).toEqual((await freshAnswer(url, key)).body);
        // The guarded statement answered nothing; then the key's lookup, then the account's, say which refusal.
        expect(statements[0], url).toContain('"api_keys"');
        expect(statements[0], url).toContain('"accounts"');
      }
      // A key this instance has not seen: its lookup, then one statement for the account and its page (three before).
      const unseen = await newKey('acme');
      const { answer, statements } = await counted(second, `/v3/accounts/${tenants.acme.account}/payments`, unseen);
      expect(answer.status).toBe(200);
      expect(answer.body.meta.total).toBeGreaterThan(0);
      expect(statements).toHaveLength(2);
    },
  );

  it.runIf(TEST_DIALECT === 'postgres')(
    "sends one statement for an endpoint's deliveries on a known key, and answers an unknown or another tenant's endpoint 404 as a lookup first does",
    async () => {
      const [own, other] = [await newKey('acme', ['write']), await newKey('zeta', ['write'])];
      const create = async (key: string) => {
        const created = await first.inject({
          method: 'POST',
          url: '/v3/webhook_endpoints',
          headers: { authorization: `Bearer ${key}` },
          payload: { url: 'https://shop.example.com/hooks', enabled_events: ['payment.refunded'] },
        });
        expect(created.statusCode).toBe(201);
        return created.json().data.id as string;
      };
      const [mine, theirs] = [await create(own), await create(other)];
      const url = `/v3/webhook_endpoints/${mine}/deliveries`;
      expect((await get(first, url, own)).status).toBe(200);
      const { answer, statements } = await counted(first, url, own);
      expect(answer.status).toBe(200);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toContain('"webhook_endpoints"');
      for (const endpoint of [newId('whe'), theirs]) {
        const refusedUrl = `/v3/webhook_endpoints/${endpoint}/deliveries`;
        const refused = await get(first, refusedUrl, own);
        expect(refused.status, refusedUrl).toBe(404);
        expect(refused.detail, refusedUrl).toBe(`No webhook endpoint ${endpoint}.`);
        expect(refused.body, refusedUrl).toEqual((await freshAnswer(refusedUrl, own)).body);
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

  /** A create of 12.00 EUR with the test card on `account`, under `idempotencyKey` when given. */
  const create = (app: FastifyInstance, key: string, account: string, idempotencyKey?: string, metadata?: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: '/v3/payments',
      headers: { authorization: `Bearer ${key}`, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      payload: { account_id: account, amount: 1200, currency: 'EUR', card: card(), ...(metadata ? { metadata } : {}) },
    });
  const countOf = async (table: 'payments' | 'idempotency_keys', tenant: string) =>
    Number(
      (
        await database.db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenant_id', '=', tenant)
          .executeTakeFirstOrThrow()
      ).n,
    );
  let idempotencyKeys = 0;
  const freshIdempotencyKey = () => `known-key-${++idempotencyKeys}`;

  it.runIf(TEST_DIALECT === 'postgres')(
    "sends the claim (with its BEGIN), the rest and commit for a keyed create once the instance knows the key: the key's check goes with the claim (decision 0095)",
    async () => {
      const key = await newKey('acme', ['read', 'write']);
      const lastUsed = async () =>
        (await database.db.kysely.selectFrom('api_keys').select('last_used_at').where('key_prefix', '=', key.slice(0, 10)).executeTakeFirstOrThrow())
          .last_used_at;
      expect((await create(first, key, tenants.acme.account, freshIdempotencyKey())).statusCode).toBe(201);
      await expect.poll(lastUsed).not.toBeNull();
      // The fold of its list change too (countFolder.ts): its statements would be counted with the next create's.
      await untilFolded(database.db);
      const keyed = await countedSend('create', () => create(first, key, tenants.acme.account, freshIdempotencyKey()));
      expect(keyed.answer.statusCode).toBe(201);
      expect(keyed.statements).toHaveLength(3);
      expect(keyed.firstAfterBegin).toBe(true);
      for (const part of ['"api_keys"', 'insert into "idempotency_keys"', 'pg_try_advisory_xact_lock', 'from "accounts"']) {
        expect(keyed.statements[0]).toContain(part);
      }
      expect(keyed.statements[2]).toBe('commit');
      // The claim and the rest go prepared (decision 0097), one text whatever the number of metadata keys.
      expect(keyed.named.slice(0, 2)).toEqual([true, true]);
      const withMetadata = [];
      for (const metadata of [{ order: '1' }, { order: '2', channel: 'web', region: 'eu' }] as Array<Record<string, string>>) {
        await untilFolded(database.db);
        withMetadata.push(await countedSend('create', () => create(first, key, tenants.acme.account, freshIdempotencyKey(), metadata)));
      }
      expect(withMetadata[0].statements[1]).toContain('insert into "payment_metadata"');
      expect(withMetadata[1].statements).toEqual(withMetadata[0].statements);
      expect(withMetadata.map((sent) => sent.named.slice(0, 2))).toEqual([
        [true, true],
        [true, true],
      ]);
      // Without an Idempotency-Key the general way runs: the key is looked up before anything is written.
      await untilFolded(database.db);
      const plain = await countedSend('create', () => create(first, key, tenants.acme.account));
      expect(plain.answer.statusCode).toBe(201);
      expect(plain.statements[0]).toContain('"api_keys"');
      expect(plain.statements[0]).not.toContain('insert');
      expect(plain.firstAfterBegin).toBe(false);
    },
  );

  it("refuses a create on a key revoked or expired since the instance saw it with the lookup's 401, and writes nothing, keyed or not", async () => {
    for (const change of ['revoked', 'expired'] as const) {
      for (const keyed of [true, false]) {
        const key = await newKey('zeta', ['read', 'write']);
        expect((await create(second, key, tenants.zeta.account, freshIdempotencyKey())).statusCode).toBe(201);
        await endKey(key, change);
        const before = { payments: await countOf('payments', tenants.zeta.id), keys: await countOf('idempotency_keys', tenants.zeta.id) };
        const refused = await create(second, key, tenants.zeta.account, keyed ? freshIdempotencyKey() : undefined);
        const what = `${change}, ${keyed ? 'keyed' : 'not keyed'}`;
        expect(refused.statusCode, what).toBe(401);
        expect(refused.json().detail, what).toMatch(change === 'revoked' ? /^The API key was revoked at / : /^The API key expired at /);
        expect({ payments: await countOf('payments', tenants.zeta.id), keys: await countOf('idempotency_keys', tenants.zeta.id) }, what).toEqual(before);
      }
    }
  });

  it('answers a create on a key known without the write scope 403, writing nothing', async () => {
    const key = await newKey('acme', ['read']);
    expect((await get(first, '/v3/payments', key)).status).toBe(200);
    const before = await countOf('payments', tenants.acme.id);
    const refused = await create(first, key, tenants.acme.account, freshIdempotencyKey());
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toBe('This API key lacks the write scope.');
    expect(await countOf('payments', tenants.acme.id)).toBe(before);
  });

  it('keeps tenants apart: model-based, list requests and creates on two instances interleaved with keys made, revoked and expired, and accounts made and deleted', async () => {
    type Tenant = 'acme' | 'zeta';
    type KeyModel = { key: string; tenant: Tenant; scopes: Scope[]; state: 'active' | 'revoked' | 'expired' };
    /** Accounts the run makes (and may delete): their payments list is answered only while they are there, and only to their tenant. */
    type MadeAccount = { id: string; tenant: Tenant; alive: boolean };
    /** `accounts`, `payments`: each tenant's when the run starts (the seeded ones and what earlier runs left), payments counting the run's creates. */
    type Model = { keys: KeyModel[]; made: MadeAccount[]; accounts: Record<Tenant, number>; payments: Record<Tenant, number> };
    type Real = { apps: FastifyInstance[] };
    const writers = { acme: await newKey('acme', ['read', 'write']), zeta: await newKey('zeta', ['read', 'write']) };
    const MISSING = newId('acc');
    const urls = [
      '/v3/payments',
      '/v3/accounts',
      '/v3/accounts/:account/payments',
      '/v3/accounts/:other/payments',
      '/v3/accounts/:missing/payments',
      '/v3/accounts/:made/payments',
    ] as const;
    /** The account a url names for a key of `tenant`: its own seeded one, the other tenant's, one that never was, or one the run made. */
    const accountOf = (url: (typeof urls)[number], tenant: Tenant, made: MadeAccount | undefined) =>
      url.includes(':account')
        ? tenants[tenant].account
        : url.includes(':other')
          ? tenants[tenant === 'acme' ? 'zeta' : 'acme'].account
          : url.includes(':made')
            ? (made?.id ?? MISSING)
            : MISSING;
    const expected = (model: Model, k: KeyModel, url: (typeof urls)[number], made: MadeAccount | undefined) => {
      if (k.state !== 'active') return { status: 401 };
      if (!k.scopes.includes('read')) return { status: 403 };
      if (url === '/v3/accounts') return { status: 200, total: model.accounts[k.tenant] + model.made.filter((m) => m.tenant === k.tenant && m.alive).length };
      if (url === '/v3/payments') return { status: 200, total: model.payments[k.tenant] };
      if (url.includes(':account')) return { status: 200 };
      if (url.includes(':made') && made?.alive && made.tenant === k.tenant) return { status: 200, total: 0 };
      return { status: 404 };
    };
    const request = fc.tuple(fc.nat(), fc.nat(), fc.nat(1), fc.constantFrom(...urls)).map(([i, j, instance, url]) => ({
      check: (model: Readonly<Model>) => model.keys.length > 0,
      async run(model: Model, real: Real) {
        const k = model.keys[i % model.keys.length];
        const made = model.made.length > 0 ? model.made[j % model.made.length] : undefined;
        const account = accountOf(url, k.tenant, made);
        const path = url.replace(/:\w+/, account);
        const answer = await get(real.apps[instance], path, k.key);
        const want = expected(model, k, url, made);
        expect(answer.status, `${path} ${k.tenant} ${k.state} ${k.scopes}`).toBe(want.status);
        if (want.status === 404) expect(answer.detail).toBe(`No account ${account}.`);
        if (want.status !== 200) return;
        if (want.total !== undefined) expect(answer.body.meta.total).toBe(want.total);
        // Every record is the key's tenant's: its accounts' ids, never the other's.
        const own = await database.db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenants[k.tenant].id).execute();
        const ownIds = new Set(own.map((a) => a.id));
        for (const record of answer.body.data) expect(ownIds.has(url === '/v3/accounts' ? record.id : record.account_id)).toBe(true);
      },
      toString: () => `GET ${url} on ${instance ? 'second' : 'first'} with #${i}, made #${j}`,
    }));
    // A create on the key's own account, the other tenant's or one that never was, under a new Idempotency-Key or none.
    const creates = fc
      .tuple(fc.nat(), fc.nat(1), fc.constantFrom('own' as const, 'other' as const, 'missing' as const), fc.boolean())
      .map(([i, instance, whose, keyed]) => ({
        check: (model: Readonly<Model>) => model.keys.length > 0,
        async run(model: Model, real: Real) {
          const k = model.keys[i % model.keys.length];
          const other: Tenant = k.tenant === 'acme' ? 'zeta' : 'acme';
          const account = whose === 'own' ? tenants[k.tenant].account : whose === 'other' ? tenants[other].account : MISSING;
          const answer = await create(real.apps[instance], k.key, account, keyed ? freshIdempotencyKey() : undefined);
          const want = k.state !== 'active' ? 401 : !k.scopes.includes('write') ? 403 : whose === 'own' ? 201 : 422;
          expect(answer.statusCode, `${k.tenant} ${k.state} ${k.scopes} ${whose}`).toBe(want);
          if (want === 201) {
            expect(answer.json().data.account_id).toBe(account);
            model.payments[k.tenant]++;
          }
          // Nothing but an answered create wrote a payment, in either tenant.
          for (const tenant of ['acme', 'zeta'] as const) expect(await countOf('payments', tenants[tenant].id), tenant).toBe(model.payments[tenant]);
        },
        toString: () => `create on ${whose} account with #${i} on ${instance ? 'second' : 'first'}${keyed ? ', keyed' : ''}`,
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
          await endKey(k.key, state);
          k.state = state;
        },
        toString: () => `${state} #${i}`,
      })),
      fc.tuple(fc.constantFrom('acme' as const, 'zeta' as const), fc.nat(1)).map(([tenant, instance]) => ({
        check: () => true,
        async run(model: Model, real: Real) {
          const made = await real.apps[instance].inject({
            method: 'POST',
            url: '/v3/accounts',
            headers: { authorization: `Bearer ${writers[tenant]}` },
            payload: { name: 'Made by the model', email: 'made@example.com', currency: 'EUR' },
          });
          expect(made.statusCode).toBe(201);
          model.made.push({ id: made.json().data.id, tenant, alive: true });
        },
        toString: () => `account made for ${tenant} on ${instance ? 'second' : 'first'}`,
      })),
      fc.tuple(fc.nat(), fc.nat(1)).map(([j, instance]) => ({
        check: (model: Readonly<Model>) => model.made.some((m) => m.alive),
        async run(model: Model, real: Real) {
          const m = model.made.filter((a) => a.alive)[j % model.made.filter((a) => a.alive).length];
          const deleted = await real.apps[instance].inject({
            method: 'DELETE',
            url: `/v3/accounts/${m.id}`,
            headers: { authorization: `Bearer ${writers[m.tenant]}` },
          });
          expect(deleted.statusCode).toBe(204);
          m.alive = false;
        },
        toString: () => `a made account deleted on ${instance ? 'second' : 'first'} (#${j})`,
      })),
      // Requests and creates three times as often as keys change: a key is mostly known to an instance when it changes.
      request,
      request,
      request,
      creates,
      creates,
      creates,
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30, size: 'max' }), async (cmds) => {
        const accounts = async (tenant: Tenant) =>
          Number(
            (
              await database.db.kysely
                .selectFrom('accounts')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('tenant_id', '=', tenants[tenant].id)
                .executeTakeFirstOrThrow()
            ).n,
          );
        const model: Model = {
          keys: [],
          made: [],
          accounts: { acme: await accounts('acme'), zeta: await accounts('zeta') },
          payments: { acme: await countOf('payments', tenants.acme.id), zeta: await countOf('payments', tenants.zeta.id) },
        };
        await fc.asyncModelRun(() => ({ model, real: { apps: [first, second] } }), cmds);
      }),
      { numRuns: 40 },
    );
  });
});
