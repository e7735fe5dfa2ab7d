import fc from 'fast-check';
import { CARDS } from './cards.ts';

/**
 * fast-check arbitraries for what a hostile client sends: query strings, path segments,
 * headers and JSON bodies, mixing plausible values (so requests get past the first check)
 * with garbage (so every later check is reached too).
 */

const SQL = ["' OR 1=1 --", '1; DROP TABLE payments', '"); select pg_sleep(5); --', "' UNION SELECT key_hash FROM api_keys --", '%', '_', '\\'];
const JSONISH = ['{"a":1}', '[1,2]', 'null', 'true', '{"$gt":""}', '{"__proto__":{"x":1}}', '"', '\\u0000'];
const NUMBERS = ['0', '-1', '1.5', '1e3', '1e400', '0x10', '+5', ' 1', '99999999999999999999999', '9007199254740993', 'NaN', 'Infinity', '-0', '٣', '１'];
const CONTROL = ['\u0000', '\u0001\u0002', '\r\n', '\t', '\u007f', '\u202e', '\ufeff', '\ud800', '💳', 'é', 'İ', 'ß'];

/** Any text, including unicode, lone surrogates and control characters. */
export const anyText = (maxLength = 40) =>
  fc.oneof(fc.string({ maxLength }), fc.string({ unit: 'binary', maxLength }), fc.constantFrom(...SQL, ...JSONISH, ...NUMBERS, ...CONTROL));

const FIELDS = ['status', 'currency', 'account_id', 'card_brand', 'card_last4', 'reference', 'amount', 'created_at', 'email', 'name', 'id', 'tenant_id', 'x'];
const OPS = ['gte', 'gt', 'lte', 'lt', 'eq', 'in', ''];

const plausibleValue = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '10',
    '5000',
    '5001',
    'succeeded',
    'succeeded,failed',
    'visa',
    'USD,EUR',
    'usd',
    '4242',
    '2026-01-01',
    '2026-02-30',
    '0000-01-01',
    '9999-12-31T23:59:59-14:00',
    '0001-01-01T00:00:00+00:01',
    '2026-01-01T00:00:00Z',
    'created_at',
    '-amount',
    'amount,-created_at',
    'name',
    ',',
    ',,',
    '',
  ),
  fc.array(fc.constantFrom('succeeded', 'failed', 'visa', 'USD', '4242', 'x'), { maxLength: 80 }).map((v) => v.join(',')),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.double().map(String),
);

/** Names qs would drop or reshape without a word (issue 12): refused on every route, a 422 naming them. */
export const MALFORMED_NAMES = [
  'filter[__proto__]',
  'filter[amount][__proto__]',
  'filter[created_at][gte][__proto__]',
  '__proto__',
  '__proto__[filter]',
  'filter[status]x',
  'filter[status',
  'filter]',
  '[status]',
  'filter[amount][gte]]',
  'filter[[status]]',
];
/** Names of Object.prototype members as filters and range operators: a list names them like any unknown one. */
export const PROTOTYPE_MEMBER_FILTERS = [
  'filter[constructor]',
  'filter[prototype]',
  'filter[amount][prototype]',
  'filter[amount][gte][constructor]',
  'filter[created_at][toString]',
];

const queryKey = fc.oneof(
  fc.constantFrom('page', 'per_page', 'sort', 'filter', 'cursor', 'include'),
  fc.constantFrom(...MALFORMED_NAMES, ...PROTOTYPE_MEMBER_FILTERS),
  fc.constantFrom(...FIELDS).map((f) => `filter[${f}]`),
  fc.tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...OPS)).map(([f, op]) => `filter[${f}][${op}]`),
  fc
    .array(fc.constantFrom('filter', 'a', '', '0', '99', '__proto__', 'constructor', 'prototype', 'length'), { minLength: 1, maxLength: 7 })
    .map(([head, ...rest]) => head + rest.map((s) => `[${s}]`).join('')),
  anyText(20),
);

/** How a piece of a query string is written: encoded as a browser would, or raw, or broken. */
function spell(raw: string, how: number): string {
  const text = raw.toWellFormed(); // a URL carries UTF-8: a lone surrogate cannot be sent
  switch (how) {
    case 0:
      return encodeURIComponent(text);
    case 1: // brackets literal, the rest encoded (what curl -g sends)
      return encodeURIComponent(text).replace(/%5B/g, '[').replace(/%5D/g, ']');
    case 2: // form encoding
      return encodeURIComponent(text).replace(/%20/g, '+');
    default: // only what cannot be in a URL at all is escaped; broken escapes survive
      return text.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c)).replace(/#/g, '%23');
  }
}

const pair = fc
  .tuple(queryKey, fc.oneof(plausibleValue, anyText(60)), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 9 }))
  .map(([key, value, how, form]) => (form === 0 ? spell(key, how) : form === 1 ? `${spell(key, how)}=` : `${spell(key, how)}=${spell(value, how)}`));

/** Pairs a client of the API would send: known parameters, values valid or nearly so. */
const plausiblePair = fc.oneof(
  fc.constantFrom(
    'page=1',
    'page=2',
    'page=99',
    'per_page=1',
    'per_page=100',
    'per_page=5000',
    'sort=-amount',
    'sort=created_at,-amount',
    'sort=name',
    'sort=-created_at',
  ),
  fc
    .constantFrom('status', 'card_brand')
    .chain((f) =>
      fc
        .subarray(f === 'status' ? ['succeeded', 'failed', 'authorized', 'refunded', 'active'] : ['visa', 'amex', 'jcb'], { minLength: 1 })
        .map((v) => `filter[${f}]=${v.join(',')}`),
    ),
  fc
    .tuple(
      fc.constantFrom('amount', 'created_at'),
      fc.constantFrom('gte', 'gt', 'lte', 'lt'),
      fc.constantFrom('0', '1000', '2026-06-01', '2026-06-01T12:00:00Z', '2026-06-01T12:00:00.5+02:00', '0000-01-01', '9999-12-31T23:59:59-14:00'),
    )
    .map(([f, op, v]) => `filter[${f}][${op}]=${encodeURIComponent(v)}`),
  fc.constantFrom(
    'filter[currency]=USD,EUR',
    'filter[card_last4]=4242',
    'filter[reference]=ord_1',
    'filter[email]=ada%40example.com',
    'filter[name]=a%25_',
    'utm_source=x',
  ),
);

/** A query string (without `?`), sometimes with more pairs or longer text than the limits allow. */
export const queryString = fc.oneof(
  { weight: 8, arbitrary: fc.array(plausiblePair, { maxLength: 5 }).map((pairs) => pairs.join('&')) },
  { weight: 8, arbitrary: fc.array(pair, { maxLength: 12 }).map((pairs) => pairs.join('&')) },
  { weight: 1, arbitrary: fc.array(pair, { minLength: 90, maxLength: 130 }).map((pairs) => pairs.join('&')) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('note', 'filter[name]', 'sort'), fc.integer({ min: 100, max: 9000 })).map(([k, n]) => `${k}=${'a'.repeat(n)}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '%',
      '%%',
      '%zz=1',
      '%E0%A4%A=1',
      'a=%ff',
      '&&&&',
      '=',
      '==a',
      '[]=1',
      'a[=1',
      'a]=1',
      'page[]=1&page[]=2',
      'page=1&page=2',
      'filter=1&filter[status]=failed',
      'filter[status][0]=failed',
      'x[999]=1',
    ),
  },
  // Issue 12: escapes that are not UTF-8 in free-text filters, __proto__ however spelled, a name given a value and keys.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'filter[name]=%ED%A0%80',
      'filter[reference]=%ff',
      'filter[email]=a%C0%AF@example.com',
      'filter%5B__proto__%5D=1',
      'filter[%5F_proto__]=1',
      'filter[amount]=1&filter[amount][gte]=2',
      'filter[created_at][gte]=2026-01-01&filter[created_at]=1',
      'sort=amount&sort[x]=1',
    ),
  },
);

/** A path segment standing where an identifier goes. */
export const pathId = (known: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.constantFrom(...known).map((id) => id.toLowerCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...known).map((id) => `${id}x`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'acc_',
        'pay_',
        'acc_01ARZ3NDEKTSV4RRFFQ69G5FAV',
        'pay_01ARZ3NDEKTSV4RRFFQ69G5FAV',
        '..',
        '.',
        '%2e%2e',
        '%00',
        '%',
        '%zz',
        '%E0%A4%A',
        'null',
        'undefined',
        '0',
        '-1',
      ),
    },
    { weight: 2, arbitrary: anyText(60).map((s) => encodeURIComponent(s.toWellFormed()) || 'x') },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 3000 }).map((n) => 'a'.repeat(n)) },
  );

const metadata = fc.oneof(
  fc.dictionary(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,40}$/), fc.string({ maxLength: 50 }), { maxKeys: 5 }),
  fc.dictionary(anyText(45), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 60 }),
  fc.anything(),
);

const email = fc.oneof(fc.emailAddress(), anyText(30), fc.constant(`${'a'.repeat(250)}@example.com`));
const currency = fc.oneof(fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'XXX', 'usd', 'US', 'USDD', ''), anyText(5));
const amount = fc.oneof(
  fc.integer({ min: 1, max: 100_000 }),
  fc.constantFrom(0, -1, 1.5, 99_999_999_999, 100_000_000_000, Number.MAX_SAFE_INTEGER, 1e308, -0),
  fc.constantFrom('100', '1e3', null, true, [], {}),
);

const card = fc.oneof(
  fc.record(
    {
      number: fc.oneof(fc.constantFrom(...Object.values(CARDS), '4242 4242 4242 4242', '4242-4242-4242-4242', '4242424242424241', '1234'), anyText(30)),
      exp_month: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 13, '12', 12.5)),
      exp_year: fc.oneof(fc.integer({ min: 2020, max: 2040 }), fc.constantFrom(-1, 10_000, '2031')),
      cvc: fc.oneof(fc.constantFrom('123', '1234', '12', ''), anyText(6)),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);

/** A valid body, the same with a few fields replaced by hostile ones, or anything shaped like one. */
function aroundValid<T extends object>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<Partial<Record<string, unknown>>>) {
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    {
      weight: 3,
      arbitrary: fc.tuple(valid, hostile, fc.integer({ min: 1, max: 2 })).map(([v, h, n]) => ({ ...v, ...Object.fromEntries(Object.entries(h).slice(0, n)) })),
    },
    { weight: 2, arbitrary: hostile },
  );
}

const hostileAccount = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 30 }), anyText(), fc.constant('n'.repeat(201)), fc.integer()),
    email,
    currency,
    status: fc.oneof(fc.constantFrom('active', 'suspended', 'closed', 'deleted'), anyText(10)),
    metadata,
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

/** Object bodies shaped like each write's, with any field missing, wrong or extra. */
export const accountBody = aroundValid(
  fc.record({
    name: fc.string({ minLength: 1, maxLength: 30 }).filter((n) => /\S/.test(n)),
    email: fc.constantFrom('ada@example.com', 'x.y+z@mail.example.org'),
    currency: fc.constantFrom('USD', 'EUR', 'JPY'),
    metadata: fc.dictionary(fc.stringMatching(/^[a-z0-9_]{1,10}$/), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
  }),
  hostileAccount,
);

export const paymentBody = (accountIds: string[]) =>
  aroundValid(
    fc.record({
      account_id: fc.constantFrom(...accountIds),
      amount: fc.integer({ min: 1, max: 1_000_000 }),
      currency: fc.constantFrom('USD', 'EUR', 'GBP', 'JPY'),
      capture: fc.boolean(),
      reference: fc.option(fc.stringMatching(/^[a-z0-9-]{1,20}$/), { nil: undefined }),
      card: fc
        .constantFrom(...Object.values(CARDS), '4242 4242 4242 4242')
        .map((number) => ({ number, exp_month: 12, exp_year: 2031, cvc: number.startsWith('37') ? '1234' : '123' })),
    }),
    fc.record(
      {
        account_id: fc.oneof(fc.constantFrom(...accountIds), anyText(40)),
        amount,
        currency,
        description: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null), anyText()),
        reference: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null), anyText(), fc.constant('')),
        metadata,
        capture: fc.oneof(fc.boolean(), fc.constantFrom('true', 0, null)),
        card,
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  );

export const actionBody = fc.oneof(
  fc.record({ amount: fc.integer({ min: 1, max: 5000 }) }, { requiredKeys: [] }),
  fc.record({ amount, reason: anyText(), extra: fc.anything() }, { requiredKeys: [] }),
);

/** JSON text with a byte that is not UTF-8 put into its first string value (or at its start). */
function withInvalidUtf8(json: string, bytes: number[]): Buffer {
  const value = json.indexOf('":"');
  const at = value === -1 ? 0 : value + 3;
  return Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from(bytes), Buffer.from(json.slice(at))]);
}

const INVALID_UTF8 = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xdc]];

/** A body of `n` fields no route accepts: the 422 must stay small however many there are. */
const unknownFields = fc
  .integer({ min: 15, max: 6000 })
  .map((n) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`unknown_${i}`, i]))));

/** What goes on the wire as a body: a JSON value, broken JSON, bytes that are not UTF-8, or none. */
export const rawBody = (shaped: fc.Arbitrary<unknown>): fc.Arbitrary<string | Buffer | undefined> =>
  fc.oneof(
    { weight: 12, arbitrary: shaped.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.tuple(shaped, fc.constantFrom(...INVALID_UTF8)).map(([v, bytes]) => withInvalidUtf8(JSON.stringify(v), bytes)) },
    { weight: 1, arbitrary: shaped.map((v) => JSON.stringify(v).replace(/":"/, '":"\\ud800')) },
    { weight: 1, arbitrary: unknownFields },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 100_000 }).map((n) => JSON.stringify({ ['k'.repeat(n)]: 1 })) },
    { weight: 1, arbitrary: fc.json() },
    { weight: 1, arbitrary: anyText(80) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        '[1,2',
        '{"a":1}}',
        '\u0000',
        'null',
        '[]',
        '"x"',
        '1e999',
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 600 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

export const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
      'application/json; charset="UTF-8"',
      'application/json; charset=',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/problem+json',
      'application/xml',
      'text/html',
      '*/*',
      ';',
      '',
    ),
  },
  { weight: 1, arbitrary: anyText(30).map((s) => s.replace(/[^\x20-\x7e]/g, '')) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** A header value as a client could put it on the wire (visible ASCII, spaces and Latin-1). */
export const headerText = (maxLength = 60) =>
  fc.oneof(
    fc.string({ maxLength }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    fc.string({ unit: 'binary', maxLength }).map((s) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '')),
    fc.constantFrom('', ' ', '"', "'", '%00', ...SQL),
  );
