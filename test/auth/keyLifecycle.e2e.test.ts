import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

const run = promisify(execFile);

describe('the API key lifecycle: create with expiry, list, revoke, rotate (CLI), as HTTP sees it', () => {
  let database: TestDatabase;
  /** Two instances on one database: what one is told, the other must honour on its next request. */
  let first: FastifyInstance;
  let second: FastifyInstance;
  const cli = async (...args: string[]) =>
    (await run(process.execPath, ['src/cli/main.ts', ...args], { env: { ...process.env, ...database.env, LOG_LEVEL: 'silent' } })).stdout;
  const get = async (app: FastifyInstance, key: string) => {
    const response = await app.inject({ url: '/v3/accounts', headers: { authorization: `Bearer ${key}` } });
    return { status: response.statusCode, detail: response.json().detail as string | undefined };
  };
  const listed = async (tenant: string) => {
    const [header, ...rows] = (await cli('keys', 'list', '--tenant', tenant)).trimEnd().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['prefix', 'scopes', 'created', 'last used', 'expires', 'state']);
    return rows.map((row) => row.split(/\s{2,}/));
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await appOn(database);
    second = await appOn(database);
    await cli('tenants', 'create', 'acme');
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });

  it('lists tenants with their number of keys', async () => {
    await cli('tenants', 'create', 'zeta');
    await cli('keys', 'create', '--tenant', 'zeta', '--scopes', 'read');
    const rows = (await cli('tenants', 'list')).trimEnd().split('\n');
    expect(rows[0].split(/\s{2,}/)).toEqual(['name', 'id', 'created', 'keys']);
    const zeta = rows.find((r) => r.startsWith('zeta '))?.split(/\s{2,}/);
    expect(zeta?.[1]).toMatch(/^ten_/);
    expect(zeta?.[3]).toBe('1');
  });

  it('lists a key by prefix, scopes, created, last used and expiry, never the key itself', async () => {
    const key = (await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read,write', '--expires', '30d')).trim();
    const text = await cli('keys', 'list', '--tenant', 'acme');
    expect(text).not.toContain(key.slice(10));
    const row = (await listed('acme')).find((r) => r[0] === key.slice(0, 10));
    expect(row?.slice(1, 4)).toEqual(['read,write', expect.stringMatching(/^\d{4}-/), '-']);
    const expires = Date.parse(row?.[4] ?? '');
    expect(Math.abs(expires - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
    expect(row?.[5]).toBe('active');
  });

  it('records the last use, at most once a minute per key: a request never writes each time', async () => {
    const key = (await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read')).trim();
    const lastUsed = async () =>
      (await database.db.kysely.selectFrom('api_keys').select('last_used_at').where('key_prefix', '=', key.slice(0, 10)).executeTakeFirstOrThrow())
        .last_used_at;
    expect(await lastUsed()).toBeNull();
    expect((await get(first, key)).status).toBe(200);
    await expect.poll(lastUsed).not.toBeNull();
    const noted = await lastUsed();
    for (let i = 0; i < 5; i++) expect((await get(i % 2 ? first : second, key)).status).toBe(200);
    await new Promise((resume) => setTimeout(resume, 200));
    expect(await lastUsed()).toBe(noted);
    expect((await listed('acme')).find((r) => r[0] === key.slice(0, 10))?.[3]).toBe(noted);
  });

  it('refuses a revoked key on the very next request, on every instance, with a 401 that says so', async () => {
    const key = (await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read')).trim();
    expect((await get(first, key)).status).toBe(200);
    expect((await get(second, key)).status).toBe(200);
    await cli('keys', 'revoke', key.slice(0, 10));
    for (const app of [first, second]) {
      const refused = await get(app, key);
      expect(refused.status).toBe(401);
      expect(refused.detail).toMatch(/^The API key was revoked at \d{4}-.*\.$/);
    }
    expect((await listed('acme')).find((r) => r[0] === key.slice(0, 10))?.[5]).toBe('revoked');
    await expect(cli('keys', 'revoke', key.slice(0, 10))).rejects.toMatchObject({ code: 2 });
  });

  // The two cases that wait out a 10 s expiry run side by side (their own keys; `concurrent` cases
  // take the test context's `expect`): the file waits ~10 s once instead of twice.
  it.concurrent('rotates a key: a new key with the same tenant and scopes; the old one works through the grace period, then is refused saying it was rotated', async ({
    expect,
  }) => {
    const old = (await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read')).trim();
    const rotated = (await cli('keys', 'rotate', old.slice(0, 10), '--grace', '10s')).trim();
    expect(rotated).toMatch(/^apk_[A-Za-z0-9_-]{40}$/);
    expect(rotated).not.toBe(old);
    expect((await get(first, old)).status).toBe(200);
    expect((await get(second, rotated)).status).toBe(200);
    const writes = await first.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${rotated}` },
      payload: { name: 'x', currency: 'EUR' },
    });
    expect(writes.statusCode).toBe(403); // the old key's scopes: read only
    const row = (await listed('acme')).find((r) => r[0] === old.slice(0, 10));
    expect(row?.[5]).toBe(`active (rotated to ${rotated.slice(0, 10)})`);
    await new Promise((resume) => setTimeout(resume, Math.max(0, Date.parse(row?.[4] ?? '') - Date.now() + 50)));
    const refused = await get(second, old);
    expect(refused.status).toBe(401);
    expect(refused.detail).toMatch(/^The API key expired at \d{4}-.*Z\. It was rotated: use the new key \(keys list names it\)\.$/);
    expect((await get(first, rotated)).status).toBe(200);
  });

  it.concurrent('refuses an expired key with a 401 that says it expired, and a key rotated with no grace at once', async ({ expect }) => {
    // Long enough for a loaded machine to start the CLI, short enough to wait for.
    const key = (await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read', '--expires', '10s')).trim();
    expect((await get(first, key)).status).toBe(200);
    const { expires_at } = await database.db.kysely
      .selectFrom('api_keys')
      .select('expires_at')
      .where('key_prefix', '=', key.slice(0, 10))
      .executeTakeFirstOrThrow();
    await new Promise((resume) => setTimeout(resume, Math.max(0, Date.parse(expires_at ?? '') - Date.now() + 50)));
    expect(await get(first, key)).toEqual({ status: 401, detail: expect.stringMatching(/^The API key expired at \d{4}-.*Z\.$/) });
    const another = (await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read')).trim();
    await cli('keys', 'rotate', another.slice(0, 10), '--grace', '0');
    expect((await get(second, another)).status).toBe(401);
  });

  it('refuses to rotate a key that is already being rotated, saying how to end it or rotate its successor, and leaves one successor', async () => {
    await cli('tenants', 'create', 'twice');
    const old = (await cli('keys', 'create', '--tenant', 'twice', '--scopes', 'read')).trim();
    const successor = (await cli('keys', 'rotate', old.slice(0, 10), '--grace', '1m')).trim();
    const again = cli('keys', 'rotate', old.slice(0, 10), '--grace', '0');
    await expect(again).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`${old.slice(0, 10)} is already being rotated: ${successor.slice(0, 10)}… replaces it, and it works until `),
    });
    await expect(again).rejects.toMatchObject({
      stderr: expect.stringContaining(
        `to end that now: npm run --silent cli -- keys revoke ${old.slice(0, 10)}; to rotate again: npm run --silent cli -- keys rotate ${successor.slice(0, 10)}`,
      ),
    });
    expect((await listed('twice')).map((row) => row[0]).sort()).toEqual([old.slice(0, 10), successor.slice(0, 10)].sort());
    expect((await get(first, old)).status).toBe(200);
    expect((await get(first, successor)).status).toBe(200);
    // The successor is a key like any other: it can be rotated in its turn.
    expect((await cli('keys', 'rotate', successor.slice(0, 10), '--grace', '0')).trim()).toMatch(/^apk_/);
  });

  it('refuses bad arguments with a usage error', async () => {
    await expect(cli('keys', 'create', '--tenant', 'acme', '--expires', 'yesterday')).rejects.toMatchObject({ code: 2 });
    await expect(cli('keys', 'revoke', 'apk_nothere')).rejects.toMatchObject({ code: 2 });
    await expect(cli('keys', 'list', '--tenant', 'nobody')).rejects.toMatchObject({ code: 2 });
  });
});
