import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUE_CODES } from '../../src/core/issueCodes.ts';
import { card } from '../support/cards.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';

const GUIDE = readFileSync(resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');

/** The errors guide's example 422 body and the request it answers (section "Invalid values (422)"). */
function guideExample(): { request: Record<string, unknown>; answer: Record<string, unknown> } {
  const section = GUIDE.slice(GUIDE.indexOf('### Invalid values (422)'));
  const request = JSON.parse(/-d '([^']+)'/.exec(section)?.[1] ?? 'null');
  const answer = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? 'null');
  return { request, answer };
}

describe('a 422 lists every problem of the request at once, in sentences, with codes', { timeout: 60_000 }, () => {
  let t: TestContext;
  let key: string;
  let account: string;

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('acme')).key;
    account = (await t.send('POST', '/v3/accounts', key, { name: 'Ada', email: 'ada@example.com', currency: 'EUR' })).body.data.id;
  }, 120_000);
  afterAll(() => t.close());

  /** Each 422 has `codes` with exactly the keys of `errors`, one known code per sentence. */
  function expectCodesBesideErrors(body: { errors: Record<string, string[]>; codes: Record<string, string[]> }) {
    expect(Object.keys(body.codes)).toEqual(Object.keys(body.errors));
    for (const [field, messages] of Object.entries(body.errors)) {
      expect(body.codes[field].length, field).toBe(messages.length);
      for (const code of body.codes[field]) expect(Object.keys(ISSUE_CODES)).toContain(code);
    }
  }

  it('names schema, card, currency and account problems of a payment together', async () => {
    const response = await t.send('POST', '/v3/payments', key, {
      account_id: 'acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C',
      amount: 0,
      currency: 'XXX',
      colour: 'red',
      card: { number: '4242 4242 4242 4241', exp_month: 1, exp_year: 2020, cvc: '12' },
    });
    expect(response.status).toBe(422);
    expect(response.body.codes).toEqual({
      colour: ['unknown_field'],
      amount: ['out_of_range'],
      'card.number': ['invalid_card_number'],
      'card.exp_year': ['card_expired'],
      'card.cvc': ['invalid_cvc'],
      currency: ['unsupported_currency'],
      account_id: ['unknown_account'],
    });
    expectCodesBesideErrors(response.body);
    expect(response.body.detail).toBe('Invalid values for colour, amount, card.number, card.exp_year, card.cvc, currency, account_id.');
  });

  it('words each problem as a sentence about what the value must be, never a validator’s keyword or pattern', async () => {
    const response = await t.send('POST', '/v3/accounts', key, { name: ' ', email: 'ada', currency: 'eur', status: 'gone', metadata: { 'a b': 'x' } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      name: ['must be 1 to 200 characters, not only spaces'],
      email: ['must be an email address, like ada@example.com'],
      currency: ['must be a three-letter ISO 4217 code in capitals, like EUR'],
      status: ['must be one of: active, suspended'],
      metadata: ['has a key that is not 1–40 letters, digits or _ . : -'],
    });
    expectCodesBesideErrors(response.body);
    const text = JSON.stringify(response.body);
    for (const internal of ['must match', 'must NOT', 'pattern', 'must be equal to', 'anyOf', '^[']) expect(text).not.toContain(internal);
  });

  it('lists what the schema refuses beside what is checked after it (an unknown currency)', async () => {
    const response = await t.send('POST', '/v3/accounts', key, { name: 'Ok', email: 'nope', currency: 'XYZ' });
    expect(response.body.codes).toEqual({ email: ['invalid_email'], currency: ['unknown_currency'] });
  });

  it('says what type a field wants, a missing field is required, and an empty change says which fields there are', async () => {
    const wrongTypes = await t.send('POST', '/v3/payments', key, { account_id: account, amount: '10', currency: 'EUR', card: { ...card(), exp_month: '12' } });
    expect(wrongTypes.body.errors).toEqual({
      amount: ['must be a whole number from 1 to 99999999999'],
      'card.exp_month': ['must be a whole number from 1 to 12'],
    });
    expect(wrongTypes.body.codes).toEqual({ amount: ['wrong_type'], 'card.exp_month': ['wrong_type'] });
    const missing = await t.send('POST', '/v3/payments', key, { account_id: account, currency: 'EUR' });
    expect(missing.body.codes).toEqual({ amount: ['required'], card: ['required'] });
    const empty = await t.send('PATCH', `/v3/accounts/${account}`, key, {});
    expect(empty.body.errors).toEqual({ body: ['must change at least one field: name, email, status, metadata'] });
  });

  it('checks the account only once the rest is fine, and then still in one answer', async () => {
    const other = await t.send('POST', '/v3/payments', key, { account_id: 'acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C', amount: 100, currency: 'EUR', card: card() });
    expect(other.status).toBe(422);
    expect(other.body.codes).toEqual({ account_id: ['unknown_account'] });
    const fine = await t.send('POST', '/v3/payments', key, { account_id: account, amount: 100, currency: 'EUR', card: card() });
    expect(fine.status).toBe(201);
  });

  it('gives codes for query parameters too', async () => {
    const response = await t.get('/v3/payments?per_page=0&filter[colour]=red&sort=height', key);
    expect(response.status).toBe(422);
    expect(response.body.codes).toEqual({ per_page: ['invalid_per_page'], 'filter[colour]': ['unknown_filter'], sort: ['unknown_sort'] });
    expectCodesBesideErrors(response.body);
  });

  it('answers the errors guide’s example request with its example answer', async () => {
    const { request, answer } = guideExample();
    const response = await t.send('POST', '/v3/payments', key, { ...request, account_id: account });
    expect(response.status).toBe(422);
    expect(response.body).toEqual(answer);
  });
});
