/**
 * The floor: the same list endpoints written the plainest way, over the same tables, so that
 * `npm run bench` can print our ratio to it per case in the same run. One Fastify process, the
 * API key looked up by its hash on every request, `count(*)` and `OFFSET … LIMIT` (run
 * concurrently on a `pg.Pool`; one after the other on `node:sqlite`), rows mapped to resources
 * and the whole Laravel envelope through `JSON.stringify`. No cache, no stored JSON, no counts.
 *
 * It is a yardstick, not a second implementation: it answers only what the bench asks (the
 * three lists, `page`, `per_page`, `filter[status]`, `filter[account_id]`, `sort`, and for the filter
 * shapes of `--only filters` one value of `filter[currency]` and `filter[card_brand]` and the
 * `gte|gt|lte|lt` bounds of `filter[amount]` and of `filter[created_at]` in the stored form,
 * `…T00:00:00.000Z`, and `filter[metadata][key]=a,b` read from the metadata column itself),
 * and answers anything else with a 400. Started by the bench as `node scripts/bench/floor/floorServer.ts`
 * with DATABASE_URL; prints "Listening on <origin>" as `cli serve` does.
 */
import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';

type Row = Record<string, unknown>;
interface Db {
  query(text: string, params: unknown[]): Promise<Row[]>;
  /** The total and the page's rows, as the plainest code asks for them on this database. */
  countAndRows(count: string, rows: string, params: unknown[], limit: number, offset: number): Promise<[number, Row[]]>;
}

const url = process.env.DATABASE_URL ?? '';

function openDb(): Db {
  if (url.startsWith('sqlite:')) {
    const db = new DatabaseSync(url.slice('sqlite:'.length), { readOnly: true });
    const query = (text: string, params: unknown[]) => db.prepare(text).all(...(params as never[])) as Row[];
    return {
      query: async (text, params) => query(text, params),
      countAndRows: async (count, rows, params, limit, offset) => [
        Number(query(count, params)[0].n),
        query(`${rows} limit ? offset ?`, [...params, limit, offset]),
      ],
    };
  }
  pg.types.setTypeParser(20, Number); // count(*) and amounts: well inside 2^53
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const numbered = (text: string) => {
    let i = 0;
    return text.replace(/\?/g, () => `$${++i}`);
  };
  const query = async (text: string, params: unknown[]) => (await pool.query(numbered(text), params)).rows as Row[];
  return {
    query,
    countAndRows: async (count, rows, params, limit, offset) => {
      const [c, r] = await Promise.all([query(count, params), query(`${rows} limit ? offset ?`, [...params, limit, offset])]);
      return [Number(c[0].n), r];
    },
  };
}

const db = openDb();
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

const toPayment = (r: Row) => ({
  id: r.id,
  account_id: r.account_id,
  amount: Number(r.amount),
  currency: r.currency,
  status: r.status,
  amount_refunded: Number(r.amount_refunded),
  refund_reason: r.refund_reason,
  method: 'card',
  card: { brand: r.card_brand, last4: r.card_last4, exp_month: r.card_exp_month, exp_year: r.card_exp_year, fingerprint: r.card_fingerprint },
  description: r.description,
  reference: r.reference,
  failure_code: r.failure_code,
  failure_message: r.failure_message,
  metadata: json(r.metadata),
  captured_at: iso(r.captured_at),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

const toAccount = (r: Row) => ({
  id: r.id,
  name: r.name,
  email: r.email,
  currency: r.currency,
  status: r.status,
  metadata: json(r.metadata),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

const PAYMENT_COLUMNS =
  'id, account_id, amount, currency, status, amount_refunded, refund_reason, card_brand, card_last4, card_exp_month, card_exp_year, card_fingerprint, description, reference, failure_code, failure_message, metadata, captured_at, created_at, updated_at';
const ACCOUNT_COLUMNS = 'id, name, email, currency, status, metadata, created_at, updated_at';
const SORTS: Record<string, Record<string, string>> = {
  payments: { created_at: 'created_at, id', '-created_at': 'created_at desc, id desc', amount: 'amount, id', '-amount': 'amount desc, id desc' },
  accounts: { created_at: 'created_at, id', '-created_at': 'created_at desc, id desc', name: 'name, id', '-name': 'name desc, id desc' },
};

const RANGES = [
  ['gte', '>='],
  ['gt', '>'],
  ['lte', '<='],
  ['lt', '<'],
] as const;

class BadRequest extends Error {}

async function tenantOf(request: FastifyRequest): Promise<string | undefined> {
  const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!key) return undefined;
  const hash = createHash('sha256').update(key).digest('hex');
  const rows = await db.query('select tenant_id from api_keys where key_hash = ? and revoked_at is null', [hash]);
  return rows[0]?.tenant_id as string | undefined;
}

function pageLink(request: FastifyRequest, origin: string, page: number | null): string | null {
  if (page === null) return null;
  const [path, query = ''] = request.url.split('?');
  const kept = query.split('&').filter((pair) => pair !== '' && !pair.startsWith('page='));
  return `${origin}${path}?${[...kept, `page=${page}`].join('&')}`;
}

/** Laravel's UrlWindow (three pages on each side): the numbered links of meta.links. */
function windowPages(page: number, lastPage: number): (number | '...')[] {
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
  if (lastPage < 14) return range(1, lastPage);
  if (page <= 7) return [...range(1, 10), '...', lastPage - 1, lastPage];
  if (page > lastPage - 7) return [1, 2, '...', ...range(lastPage - 9, lastPage)];
  return [1, 2, '...', ...range(page - 3, page + 3), '...', lastPage - 1, lastPage];
}

async function list(request: FastifyRequest, reply: FastifyReply, table: 'payments' | 'accounts', accountId?: string) {
  const tenant = await tenantOf(request);
  if (!tenant) return reply.code(401).send({ message: 'Unauthenticated.' });
  const query = request.query as Record<string, string>;
  const page = Number(query.page ?? 1);
  const perPage = Number(query.per_page ?? 10);
  const order = SORTS[table][query.sort ?? 'created_at'];
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 5000 || !order) throw new BadRequest();
  if (accountId) {
    const found = await db.query('select id from accounts where tenant_id = ? and id = ?', [tenant, accountId]);
    if (found.length === 0) return reply.code(404).send({ message: 'Not found.' });
  }
  const where = ['tenant_id = ?'];
  const params: unknown[] = [tenant];
  const account = accountId ?? query['filter[account_id]'];
  if (account !== undefined) (where.push('account_id = ?'), params.push(account));
  if (query['filter[status]'] !== undefined) (where.push('status = ?'), params.push(query['filter[status]']));
  for (const column of ['currency', 'card_brand']) {
    if (query[`filter[${column}]`] !== undefined) (where.push(`${column} = ?`), params.push(query[`filter[${column}]`]));
  }
  // Metadata search the plainest way: each searched key's value in the row's own metadata, no index.
  for (const [name, text] of Object.entries(query)) {
    const key = /^filter\[metadata\]\[(.+)\]$/.exec(name)?.[1];
    if (key === undefined) continue;
    const values = text.split(',');
    const value = url.startsWith('sqlite:') ? 'json_extract(metadata, ?)' : '(metadata ->> ?)';
    where.push(`${value} in (${values.map(() => '?').join(', ')})`);
    params.push(url.startsWith('sqlite:') ? `$.${JSON.stringify(key)}` : key, ...values);
  }
  for (const [op, sqlOp] of RANGES) {
    const amount = query[`filter[amount][${op}]`];
    if (amount !== undefined) (where.push(`amount ${sqlOp} ?`), params.push(Number(amount)));
    // The stored text on SQLite, a timestamptz on PostgreSQL: the same comparison for a bound in the stored form.
    const time = query[`filter[created_at][${op}]`];
    if (time !== undefined) (where.push(`created_at ${sqlOp} ?`), params.push(time));
  }
  const from = `from ${table} where ${where.join(' and ')}`;
  const columns = table === 'payments' ? PAYMENT_COLUMNS : ACCOUNT_COLUMNS;
  const [total, rows] = await db.countAndRows(`select count(*) as n ${from}`, `select ${columns} ${from} order by ${order}`, params, perPage, (page - 1) * perPage);
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const origin = `http://${request.headers.host}`;
  const path = `${origin}${request.url.split('?')[0]}`;
  const fromRow = rows.length ? (page - 1) * perPage + 1 : null;
  const links = windowPages(page, lastPage).map((p) =>
    p === '...' ? { url: null, label: '...', active: false } : { url: pageLink(request, origin, p), label: String(p), active: p === page },
  );
  const body = {
    data: rows.map((row): object => (table === 'payments' ? toPayment(row) : toAccount(row))),
    links: {
      first: pageLink(request, origin, 1),
      last: pageLink(request, origin, lastPage),
      prev: pageLink(request, origin, page > 1 ? page - 1 : null),
      next: pageLink(request, origin, page < lastPage ? page + 1 : null),
    },
    meta: {
      current_page: page,
      from: fromRow,
      last_page: lastPage,
      links: [
        { url: pageLink(request, origin, page > 1 ? page - 1 : null), label: '&laquo; Previous', active: false },
        ...links,
        { url: pageLink(request, origin, page < lastPage ? page + 1 : null), label: 'Next &raquo;', active: false },
      ],
      path,
      per_page: perPage,
      to: fromRow === null ? null : fromRow + rows.length - 1,
      total,
    },
  };
  return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

const app = Fastify({ logger: false });
// The same Server-Timing our service sends, so that a walk's server time is measured alike on both.
app.addHook('onRequest', async (request) => {
  (request as FastifyRequest & { started: number }).started = performance.now();
});
app.addHook('onSend', async (request, reply) => {
  reply.header('server-timing', `app;dur=${(performance.now() - (request as FastifyRequest & { started: number }).started).toFixed(2)}`);
});
app.setErrorHandler((error, _request, reply) => reply.code(error instanceof BadRequest ? 400 : 500).send({ message: String(error) }));
app.get('/v3/payments', (request, reply) => list(request, reply, 'payments'));
app.get('/v3/accounts', (request, reply) => list(request, reply, 'accounts'));
app.get('/v3/accounts/:account/payments', (request, reply) => list(request, reply, 'payments', (request.params as { account: string }).account));

const origin = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
console.log(`Listening on ${origin}`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
