import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { seed } from '../../support/seedHelpers.ts';
import { caseFold } from '../../../src/lists/request/caseFold.ts';

/**
 * `filter[name]` and `filter[email]` ignore case the Unicode way, with the very same answers on
 * SQLite and PostgreSQL (this file runs on both with one set of expectations). Before issue 12
 * SQLite folded ASCII only, and neither database matched `ß` with `ss` or `ς` with `σ`.
 */
describe('case-insensitive filters fold Unicode alike on both databases', () => {
  let t: TestContext;
  let key: string;
  const ACCOUNTS = [
    { name: 'ÜNÏCÖDÉ Straße', email: 'Ünïcödé@Example.com' },
    { name: 'ΟΔΟΣ Αθηνάς', email: 'ΣΟΦΊΑ@EXAMPLE.GR' },
    { name: 'İstanbul Kebap', email: 'kebap@example.com' },
    { name: 'Ｆｕｌｌ Ｗｉｄｔｈ Ltd', email: 'ｆｕｌｌ@example.com' },
    { name: 'Cafe\u0301 Decomposed', email: 'cafe@example.com' },
    { name: 'plain ascii', email: 'Plain@Example.com' },
  ];

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('folding')).key;
    for (const account of ACCOUNTS) expect((await t.send('POST', '/v3/accounts', key, { ...account, currency: 'EUR' })).status).toBe(201);
  });
  afterAll(() => t.close());

  const names = async (filter: string, value: string) => {
    const { status, body } = await t.get(`/v3/accounts?filter[${filter}]=${encodeURIComponent(value)}&per_page=100`, key);
    expect(status).toBe(200);
    return (body.data as Array<{ name: string }>).map((a) => a.name).sort();
  };

  it.each([
    ['ünïcödé straße', ['ÜNÏCÖDÉ Straße']],
    ['STRASSE', ['ÜNÏCÖDÉ Straße']],
    ['ünïcödé strasse', ['ÜNÏCÖDÉ Straße']],
    ['ẞ', ['ÜNÏCÖDÉ Straße']],
    ['unicode', []], // accents are kept: é is not e
    ['οδος', ['ΟΔΟΣ Αθηνάς']], // final sigma
    ['οδοσ αθ', ['ΟΔΟΣ Αθηνάς']],
    ['ΑΘΗΝΆΣ', ['ΟΔΟΣ Αθηνάς']],
    ['αθηνάσ', ['ΟΔΟΣ Αθηνάς']],
    ['İSTANBUL', ['İstanbul Kebap']],
    ['i̇stanbul', ['İstanbul Kebap']],
    ['istanbul', []], // İ folds to i + combining dot, as Unicode folds it
    ['full width', ['Ｆｕｌｌ Ｗｉｄｔｈ Ltd']],
    ['ＦＵＬＬ', ['Ｆｕｌｌ Ｗｉｄｔｈ Ltd']],
    ['café', ['Cafe\u0301 Decomposed']],
    ['CAFÉ', ['Cafe\u0301 Decomposed']],
    ['PLAIN', ['plain ascii']],
    ['%', []],
    ['_', []],
  ])('filter[name]=%s finds %j', async (value, expected) => {
    expect(await names('name', value)).toEqual(expected);
  });

  it.each([
    ['ünïcödé@example.com', ['ÜNÏCÖDÉ Straße']],
    ['ÜNÏCÖDÉ@EXAMPLE.COM', ['ÜNÏCÖDÉ Straße']],
    ['σοφία@example.gr', ['ΟΔΟΣ Αθηνάς']],
    ['Σοφία@Example.gr', ['ΟΔΟΣ Αθηνάς']],
    ['FULL@EXAMPLE.COM', ['Ｆｕｌｌ Ｗｉｄｔｈ Ltd']],
    ['plain@example.com', ['plain ascii']],
    ['plain@example', []],
  ])('filter[email]=%s finds %j', async (value, expected) => {
    expect(await names('email', value)).toEqual(expected);
  });

  it('every write path stores the folded texts: create, change, seed', async () => {
    const created = await t.send('POST', '/v3/accounts', key, { name: 'Größe', email: 'GROSSE@example.com', currency: 'EUR' });
    await t.send('PATCH', `/v3/accounts/${created.body.data.id}`, key, { name: 'Ärger Δ', email: 'ARGER@example.com' });
    expect(await names('name', 'ärger δ')).toEqual(['Ärger Δ']);
    expect(await names('email', 'arger@EXAMPLE.com')).toEqual(['Ärger Δ']);
    expect(await names('name', 'größe')).toEqual([]);
    await seed(t.database.db, 'folding', 5, 0);
    const rows = await t.database.db.kysely.selectFrom('accounts').select(['name', 'email', 'name_folded', 'email_folded']).execute();
    expect(rows.length).toBe(ACCOUNTS.length + 1 + 5);
    for (const row of rows) expect([row.name_folded, row.email_folded]).toEqual([caseFold(row.name), caseFold(row.email)]);
  });
});
