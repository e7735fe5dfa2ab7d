import { describe, expect, it } from 'vitest';
import { ConfigError, EX_CONFIG } from '../../src/config/configError.ts';
import { loadConfig } from '../../src/config/loadConfig.ts';
import { CONFIG_VARIABLES, LISTENER_VARIABLES } from '../../src/config/configVariables.ts';

/** The lines a bad environment gives, or [] when it loads. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.exitCode).toBe(EX_CONFIG);
    return error.lines;
  }
}

describe('the configuration, read from the environment through one schema', () => {
  it('gives every default on an empty environment, the embedded database among them', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      embeddedDefault: true,
      pgPoolMax: 10,
      pgPooler: 'none',
      metricsEnabled: true,
      trustProxy: false,
      logFormat: 'auto',
    });
    expect(config.databaseUrl).toBe('sqlite:./data/payments.sqlite');
  });

  it('names the variable, the value and what is allowed, one line per bad variable', () => {
    const lines = problemsOf({ LOG_LEVEL: 'verbose', PUBLIC_URL: 'notaurl', PG_POOL_MAX: 'abc', PORT: '70000' });
    expect(lines).toHaveLength(4);
    expect(lines).toContain('LOG_LEVEL="verbose" is not valid: allowed is fatal, error, warn, info, debug, trace, silent');
    expect(lines.find((l) => l.startsWith('PUBLIC_URL="notaurl"'))).toMatch(/http\(s\) URL/);
    expect(lines.find((l) => l.startsWith('PG_POOL_MAX="abc"'))).toMatch(/whole number from 1 to 1000/);
    expect(lines.find((l) => l.startsWith('PORT="70000"'))).toMatch(/0 to 65535/);
  });

  it('never prints a password: the one in a bad DATABASE_URL or REDIS_URL is masked, a secret is hidden whole', () => {
    const lines = problemsOf({
      DATABASE_URL: 'postgres://app:hunter2@db host/x',
      REDIS_URL: 'redis://:pa55@cache:6379 x',
      CARD_FINGERPRINT_SECRET: 'short-s3cret',
    });
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).not.toMatch(/hunter2|pa55|short-s3cret/);
    expect(lines[0]).toContain('DATABASE_URL="postgres://app:***@db host/x"');
    expect(lines.join('\n')).toContain('CARD_FINGERPRINT_SECRET="***"');
  });

  it('refuses a PostgreSQL DATABASE_URL that names no database, rather than use the server’s default one', () => {
    for (const url of ['postgres://app:hunter2@db:5432', 'postgres://app:hunter2@db:5432/', 'postgresql://db']) {
      const lines = problemsOf({ DATABASE_URL: url });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^DATABASE_URL="postgres(ql)?:\/\/[^"]*" is not valid: it names no database: add its name to the path/);
      expect(lines[0]).not.toContain('hunter2');
    }
    expect(loadConfig({ DATABASE_URL: 'postgres://app@db:5432/postgres' }).databaseUrl).toBe('postgres://app@db:5432/postgres');
  });

  it('reads booleans in their usual spellings, and refuses others', () => {
    for (const off of ['false', 'FALSE', '0', 'off', 'no']) expect(loadConfig({ METRICS: off }).metricsEnabled).toBe(false);
    for (const on of ['true', '1', 'on', 'yes', 'Yes']) expect(loadConfig({ METRICS: on }).metricsEnabled).toBe(true);
    expect(problemsOf({ METRICS: 'maybe' })[0]).toMatch(/^METRICS="maybe" is not valid: allowed is true\/false, 1\/0, on\/off or yes\/no$/);
  });

  it('reads TRUST_PROXY as a boolean, a hop count or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'yes' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', 'loopback']);
    expect(problemsOf({ TRUST_PROXY: 'sure' })[0]).toMatch(/^TRUST_PROXY="sure"/);
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33' })[0]).toMatch(/^TRUST_PROXY=/);
  });

  it('takes a DATABASE_URL naming several hosts (libpq: host1:port,host2:port), read-write only; never prints its password', () => {
    for (const url of [
      'postgres://app:pw@db1:5432,db2:5433/payments',
      'postgresql://app@db1,db2,[::1]:6543/payments?target_session_attrs=read-write',
      'postgres://app@db1:5432,db2:5432/payments?sslmode=disable&target_session_attrs=primary',
    ]) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
    const noName = problemsOf({ DATABASE_URL: 'postgres://app:hunter2@db1:5432,db2:5432' });
    expect(noName[0]).toMatch(/is not valid: it names no database/);
    const anyHost = problemsOf({ DATABASE_URL: 'postgres://app:hunter2@db1:5432,db2:5432/payments?target_session_attrs=any' });
    expect(anyHost).toEqual([
      'DATABASE_URL="postgres://app:***@db1:5432,db2:5432/payments?target_session_attrs=any" is not valid: target_session_attrs=any is not supported: the service needs the host that takes writes (read-write, the default here, or leave it out)',
    ]);
    const badPort = problemsOf({ DATABASE_URL: 'postgres://app:hunter2@db1:5432,db2:99999/payments' });
    expect(badPort).toHaveLength(1);
    expect(badPort[0]).not.toContain('hunter2');
  });

  it('keeps what PUBLIC_URL and DATABASE_URL say', () => {
    const config = loadConfig({
      PUBLIC_URL: 'https://api.example.com/ignored/path',
      DATABASE_URL: 'postgres://app:pw@db:5432/payments',
      DB_CONNECT_RETRY_S: '5',
    });
    expect(config).toMatchObject({
      publicUrl: 'https://api.example.com',
      databaseUrl: 'postgres://app:pw@db:5432/payments',
      embeddedDefault: false,
      dbConnectRetryMs: 5000,
    });
  });

  it('lets a command that never listens run past a bad listener-only variable, and never past any other', () => {
    const names = new Set(CONFIG_VARIABLES.map((v) => v.name));
    expect([...LISTENER_VARIABLES].filter((name) => !names.has(name))).toEqual([]);
    const env = { PORT: 'abc', HOST: '', RATE_LIMIT_PER_KEY: '-1', SHUTDOWN_TIMEOUT_MS: 'soon' };
    expect(problemsOf(env)).toHaveLength(3); // an empty HOST is unset: its default
    expect(loadConfig(env, { listening: false })).toMatchObject({ port: 3000, shutdownTimeoutMs: 10_000 });
    expect(() => loadConfig({ ...env, PG_POOL_MAX: 'abc' }, { listening: false })).toThrow(ConfigError);
  });
});
