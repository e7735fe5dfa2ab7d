import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, postgresOwnerIds } from './loopbackServices.ts';

const BIN = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** `url` with its host and port replaced by the pooler's: the same database, through PgBouncer. */
  through(url: string): string;
  /** What PgBouncer logged (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** `transaction` (the default: what large PostgreSQL shops run) or `session`. */
  poolMode?: 'transaction' | 'session';
  /** Server connections per database and user (PgBouncer's default_pool_size). */
  poolSize?: number;
  /** The PostgreSQL behind it. */
  serverPort?: number;
  /** Where it listens (on 127.0.0.1); a free port when unset. */
  port?: number;
  /** More `[pgbouncer]` settings (name = value). */
  settings?: Record<string, string | number>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Debian's PgBouncer with a stock configuration (no ignore_startup_parameters, no
 * max_prepared_statements: 1.18 has none) on a loopback port of its own, in front of the shared
 * PostgreSQL: any database name is passed through (`* =`), trust auth for `postgres`.
 */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  if (!existsSync(BIN)) throw new Error(`PgBouncer not found at ${BIN}: install Debian's pgbouncer package (.ci/run does)`);
  const dir = mkdtempSync(join(tmpdir(), 'payments-pgbouncer-'));
  const ids = postgresOwnerIds();
  const port = options.port ?? (await freePort());
  const ini = join(dir, 'pgbouncer.ini');
  const logFile = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${options.serverPort ?? 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 5}`,
      'max_client_conn = 200',
      `logfile = ${logFile}`,
      'log_connections = 0',
      'log_disconnections = 0',
      ...Object.entries(options.settings ?? {}).map(([name, value]) => `${name} = ${value}`),
      '',
    ].join('\n'),
  );
  if (ids) for (const file of [dir, ini, join(dir, 'users.txt')]) chownSync(file, ids.uid, ids.gid);
  const [command, args] = ids ? ['runuser', ['-u', 'postgres', '--', BIN, ini]] : [BIN, [ini]];
  const child: ChildProcess = spawn(command, args, { stdio: 'ignore' });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const kill = () => {
    if (!exited) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  for (let i = 0; i < 100 && !(await accepts(port)); i++) {
    if (exited) throw new Error(`PgBouncer exited at start:\n${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    through(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log,
    async stop() {
      process.off('exit', kill);
      if (!exited) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        // runuser passes SIGTERM on to PgBouncer, which then closes its connections at once.
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
        kill();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
