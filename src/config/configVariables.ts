import { boolean, integer, literals, oneOf, string, stringList, type VariableSchema } from './variableSchema.ts';
import { canParsePostgresUrl, parsePostgresUrl, sessionAttrsOf } from './postgresHosts.ts';

/**
 * Every environment variable the server and the CLI read: its type and bounds (a JSON Schema,
 * variableSchema.ts), its default and what it is for. The configuration
 * table (docs/operations.md) and `.env.example` are generated from this list (`npm run generate`), and
 * a test fails when they drift from it.
 */
export interface ConfigVariable {
  name: string;
  /** How the text is read before the schema checks it. */
  kind: 'integer' | 'boolean' | 'string' | 'trustProxy';
  schema: VariableSchema;
  /** Used when the variable is unset or empty; undefined: no value. */
  fallback: number | boolean | string | undefined;
  /** The default as the configuration table shows it. */
  shownDefault: string;
  /** What is allowed, in words: the error line and the configuration table say it. */
  allowed: string;
  description: string;
  /** A check the schema cannot express (a URL that parses). */
  refine?: (text: string) => boolean;
  /** A fault that needs its own words rather than "allowed is …" (a URL that names no database). */
  fault?: (text: string) => string | undefined;
  /** Never printed: a URL's password is masked, any other secret printed as `***`. */
  secret?: 'password-in-url' | 'whole';
  /** What `.env.example` suggests (commented out when absent). */
  example?: string;
}

const wholeNumber = (name: string, fallback: number, description: string, min = 0, max = 2_147_483_647): ConfigVariable => ({
  name,
  kind: 'integer',
  schema: integer(min, max),
  fallback,
  shownDefault: `\`${fallback}\``,
  allowed: `a whole number from ${min} to ${max}`,
  description,
});

const BOOLEAN_ALLOWED = 'true/false, 1/0, on/off or yes/no';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export const PG_POOLERS = ['none', 'session', 'transaction'] as const;

/**
 * What only a listening server reads: a command that never listens (`keys list`, `migrate`,
 * `seed`) is not stopped by a bad one of these (loadConfig's `listening: false`).
 */
export const LISTENER_VARIABLES: ReadonlySet<string> = new Set([
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'TRUST_PROXY',
  'CORS_ORIGINS',
  'WORKERS',
  'METRICS',
  'REDIS_URL',
  'READY_TIMEOUT_MS',
  'SHUTDOWN_DRAIN_MS',
  'SHUTDOWN_TIMEOUT_MS',
  'RATE_LIMIT_PER_KEY',
  'RATE_LIMIT_PER_IP',
  'RATE_LIMIT_WINDOW_MS',
  'BODY_LIMIT',
  'REQUEST_TIMEOUT_MS',
  'CONNECTION_TIMEOUT_MS',
]);

export const CONFIG_VARIABLES: ConfigVariable[] = [
  {
    name: 'DATABASE_URL',
    kind: 'string',
    schema: string({ pattern: '^(postgres(ql)?://[^\\s]+|sqlite:.+)$' }),
    fallback: undefined,
    shownDefault: '`sqlite:./data/payments.sqlite`',
    allowed: '`postgres://user:password@host:5432/db` (or several hosts, `host1:5432,host2:5432`: the writable one is used) or `sqlite:<path>`',
    description:
      'the database; its password is never printed or logged. A `sqlite:` file is created when missing, its folder is not (a typo would make one silently): only the default `./data` is',
    refine: (text) => text.startsWith('sqlite:') || canParsePostgresUrl(text),
    // Without a name the server's default database (the user's, often the maintenance database
    // `postgres`) would get the schema: refuse instead.
    fault: (text) => {
      if (text.startsWith('sqlite:')) return undefined;
      if (parsePostgresUrl(text).pathname.length <= 1) {
        return 'it names no database: add its name to the path (postgres://user:password@host:5432/payments), never the maintenance database by default';
      }
      const attrs = sessionAttrsOf(text);
      // The service writes: of several hosts it always takes the writable one (libpq's read-write).
      if (attrs !== undefined && attrs !== 'read-write' && attrs !== 'primary') {
        return `target_session_attrs=${attrs} is not supported: the service needs the host that takes writes (read-write, the default here, or leave it out)`;
      }
      return undefined;
    },
    secret: 'password-in-url',
    example: 'postgres://app:change-me@db:5432/payments',
  },
  wholeNumber(
    'DB_CONNECT_RETRY_S',
    30,
    'PostgreSQL: at start, retry a database that is not reachable yet (with backoff) this many seconds before giving up (`0`: try once)',
    0,
    3600,
  ),
  wholeNumber('PORT', 3000, 'where `serve` listens (`0`: any free port)', 0, 65535),
  {
    name: 'HOST',
    kind: 'string',
    schema: string({ minLength: 1 }),
    fallback: '127.0.0.1',
    shownDefault: '`127.0.0.1`',
    allowed: 'an address or host name',
    description: 'the address `serve` listens on (`0.0.0.0`: every interface, as in a container)',
    example: '0.0.0.0',
  },
  {
    name: 'PUBLIC_URL',
    kind: 'string',
    schema: string({ pattern: '^https?://[^\\s/?#]+(/.*)?$', format: 'uri' }),
    fallback: undefined,
    shownDefault: 'request origin',
    allowed: 'an http(s) URL such as `https://api.example.com`',
    refine: (text) => URL.canParse(text),
    description: 'origin used in page links',
    example: 'https://api.example.com',
  },
  {
    name: 'TRUST_PROXY',
    kind: 'trustProxy',
    schema: oneOf(boolean(), integer(1, 100), stringList(1)),
    fallback: false,
    shownDefault: 'off',
    allowed: `${BOOLEAN_ALLOWED}, a hop count (1-100), or comma-separated IP addresses/CIDRs (or loopback, linklocal, uniquelocal)`,
    description: 'honour `X-Forwarded-Proto`/`-Host`/`-For` from these proxies',
  },
  {
    name: 'LOG_LEVEL',
    kind: 'string',
    schema: literals(LOG_LEVELS),
    fallback: 'info',
    shownDefault: '`info`',
    allowed: LOG_LEVELS.join(', '),
    description: 'logs never hold a key or a card number (see docs/errors.md, Limits)',
  },
  {
    name: 'LOG_FORMAT',
    kind: 'string',
    schema: literals(LOG_FORMATS),
    fallback: 'auto',
    shownDefault: '`auto`',
    allowed: LOG_FORMATS.join(', '),
    description: '`auto`: coloured lines (pino-pretty) when stdout is a terminal, JSON lines otherwise',
    example: 'json',
  },
  wholeNumber('PG_POOL_MAX', 10, 'PostgreSQL pool size (per worker)', 1, 1000),
  {
    name: 'PG_POOLER',
    kind: 'string',
    schema: literals(PG_POOLERS),
    fallback: 'none',
    shownDefault: '`none`',
    allowed: PG_POOLERS.join(', '),
    description:
      'what stands between the service and PostgreSQL: `none` (a direct connection), `session` (a session-pooling PgBouncer: no startup parameters) or `transaction` (a transaction-pooling PgBouncer, RDS Proxy, Supavisor: no startup parameters and no named prepared statements). Behind a pooler every setting travels with each statement, inside its transaction',
    example: 'transaction',
  },
  {
    name: 'DATABASE_REPLICA_URLS',
    kind: 'string',
    schema: string({ pattern: '^postgres(ql)?://[^\\s,]+(\\s*,\\s*postgres(ql)?://[^\\s,]+)*$' }),
    fallback: '',
    shownDefault: 'none',
    allowed: "comma-separated `postgres://…` URLs of streaming standbys of DATABASE_URL's primary",
    description:
      "PostgreSQL only (SQLite ignores it, saying so at start-up): read replicas for list pages, single reads, exports and events. A read goes to a replica only when that replica has replayed the tenant's last acknowledged write (read-your-writes on every instance), else to the primary; see docs/scaling.md",
    refine: (text) => text.split(',').every((url) => URL.canParse(url.trim())),
    secret: 'password-in-url',
    example: 'postgres://payments:secret@replica1:5432/payments',
  },
  wholeNumber(
    'REPLICA_MAX_LAG_MS',
    5_000,
    "a replica whose data may be this old is not read from (reads go to the primary) until it catches up: measured against the primary's own WAL position, sampled every quarter of this (100 ms to 1 s), so a replica that stopped receiving WAL ages too; read-your-writes holds whatever the bound",
    1,
  ),
  wholeNumber(
    'COUNT_FOLD_MS',
    100,
    "how soon after a write its changes to the lists' counts are folded into them (many writes, one fold); totals are exact either way, a read adds what is not folded yet (docs/decisions/0040-counts-as-a-real-time-aggregate.md)",
    1,
  ),
  wholeNumber(
    'PG_STATEMENT_TIMEOUT_MS',
    10_000,
    'how long one SQL statement may run, on both databases despite the name (`0`: none); past it, 503 `database-timeout`. PostgreSQL: `statement_timeout`; SQLite: each read whose cost grows with the data, run on a reader thread, is given up at this limit (reads bounded by construction run inline)',
  ),
  wholeNumber(
    'PG_CONNECT_TIMEOUT_MS',
    5_000,
    'PostgreSQL: give up opening a connection, or waiting for a free pooled one, after this long (the request is then a 503)',
    1,
  ),
  wholeNumber('RATE_LIMIT_PER_KEY', 3000, 'requests per window per API key (`0`: off)'),
  wholeNumber('RATE_LIMIT_PER_IP', 6000, 'requests per window per client address, before authentication (`0`: off)'),
  wholeNumber('RATE_LIMIT_WINDOW_MS', 60_000, 'rate-limit window', 1),
  wholeNumber('BODY_LIMIT', 256 * 1024, 'largest request body in bytes; past it, 413', 1),
  wholeNumber('REQUEST_TIMEOUT_MS', 30_000, 'time to receive a whole request; past it, 408 (`0`: none)'),
  wholeNumber('CONNECTION_TIMEOUT_MS', 120_000, 'an idle connection is closed after this (`0`: never)'),
  {
    name: 'CARD_FINGERPRINT_SECRET',
    kind: 'string',
    schema: string({ minLength: 16 }),
    fallback: 'dev-only-fingerprint-secret-change-me',
    shownDefault: 'dev value',
    allowed: 'at least 16 characters',
    description: 'HMAC key for card fingerprints; set your own in production',
    secret: 'whole',
    example: 'change-me-to-32-random-characters',
  },
  {
    name: 'CORS_ORIGINS',
    kind: 'string',
    schema: string({ pattern: '^(\\*|https?://[^\\s,]+(\\s*,\\s*https?://[^\\s,]+)*)$' }),
    fallback: '',
    shownDefault: 'off',
    allowed: '`*` or comma-separated origins such as `https://app.example.com,https://admin.example.com`',
    description: 'origins allowed by CORS',
  },
  wholeNumber('READY_TIMEOUT_MS', 2_000, '`/ready` reports not ready when the database does not answer `select 1` within this', 1),
  wholeNumber(
    'SHUTDOWN_DRAIN_MS',
    0,
    "on SIGTERM, keep serving this long with readiness off before closing the listener; set it above your load balancer's health-check interval",
  ),
  wholeNumber(
    'SHUTDOWN_TIMEOUT_MS',
    10_000,
    "once the listener is closed, requests in flight get this long to finish; then those left (an export to a slow client) are cut, named in one log line, and the process exits 1. A stop ends within `SHUTDOWN_DRAIN_MS` + this (+ a moment): keep the orchestrator's grace period above it. A second signal exits at once",
    1,
  ),
  wholeNumber('WORKERS', 1, '`serve` forks this many worker processes sharing the port (node:cluster)', 1, 256),
  {
    name: 'METRICS',
    kind: 'boolean',
    schema: boolean(),
    fallback: true,
    shownDefault: 'on',
    allowed: BOOLEAN_ALLOWED,
    description: 'off removes `GET /metrics`',
  },
  {
    name: 'REDIS_URL',
    kind: 'string',
    schema: string({ pattern: '^rediss?://[^\\s]+$' }),
    fallback: undefined,
    shownDefault: 'unset',
    allowed: '`redis://host:6379` (or `rediss://`)',
    refine: (text) => URL.canParse(text),
    description: 'shared by several instances for rate-limit budgets (see docs/scaling.md)',
    secret: 'password-in-url',
    example: 'redis://cache:6379',
  },
  wholeNumber(
    'SEED_HEAP_MB',
    1024,
    "the heap (old generation) of `seed`'s worker thread, in MB: past it the seed stops with an error, a load in one transaction rolled back",
    16,
  ),
  wholeNumber('SEED_PAUSE_MS', 0, 'tests only: `seed` pauses this long after each batch, so a test can interrupt it'),
  wholeNumber('EXPORTS_PER_KEY', 2, 'exports (`…/export`) one API key may run at once; past it, 429 (`0`: exports off)'),
  wholeNumber(
    'EXPORT_STATEMENT_TIMEOUT_MS',
    600_000,
    "PostgreSQL `statement_timeout` of an export's count, instead of `PG_STATEMENT_TIMEOUT_MS` (the COPY that reads the records is paced by its reader and has none; `0`: none)",
  ),
  wholeNumber('EVENT_RETENTION_DAYS', 30, 'events older than this many days are purged, in batches', 1, 36_500),
  {
    name: 'WEBHOOK_ALLOW_PRIVATE_TARGETS',
    kind: 'boolean',
    schema: boolean(),
    fallback: false,
    shownDefault: 'off',
    allowed: BOOLEAN_ALLOWED,
    description: 'on allows `http` and loopback, private and link-local webhook targets: for local receivers and tests only',
  },
  wholeNumber('WEBHOOK_TIMEOUT_MS', 10_000, 'one webhook delivery attempt gives up after this long', 1),
  wholeNumber('WEBHOOK_RETRY_BASE_MS', 30_000, 'the first webhook retry comes after about this long, then the wait doubles (with jitter) up to 12 h', 1),
  wholeNumber('WEBHOOK_GIVE_UP_AFTER_MS', 3 * 24 * 60 * 60 * 1000, 'a delivery failing this long is given up and its endpoint disabled (default 3 days)', 1),
  wholeNumber('WEBHOOK_POLL_MS', 1000, 'how often the webhook sender looks for due deliveries', 1),
  {
    name: 'WEBHOOK_SENDER',
    kind: 'boolean',
    schema: boolean(),
    fallback: true,
    shownDefault: 'on',
    allowed: BOOLEAN_ALLOWED,
    description: 'off: this process sends no webhooks (another instance or worker does)',
  },
];
