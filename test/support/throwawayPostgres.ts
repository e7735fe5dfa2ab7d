import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, postgresOwnerIds } from '../../scripts/support/loopbackServices.ts';

const run = promisify(execFile);
export const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** Stops the server the way an operator's restart does (`-m fast`: sessions are terminated). */
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it if running and removes every file. Safe to call twice. */
  destroy(): Promise<void>;
}

/** initdb and postgres refuse to run as root: run them as the `postgres` OS user then. */
export function asOwner(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * A PostgreSQL cluster of its own (Debian's server binaries, `initdb` into a temp directory, a free
 * port, loopback only, socket in the temp directory, fsync off): for tests that stop and start the
 * database, which must never touch the machine's shared server.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  if (!existsSync(join(BIN, 'initdb'))) throw new Error(`PostgreSQL server binaries not found in ${BIN} (set PG_BIN_DIR)`);
  const dir = mkdtempSync(join(tmpdir(), 'payments-pg-'));
  const ids = postgresOwnerIds();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const pgCtl = join(BIN, 'pg_ctl');
  const serverOptions = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-k ${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=60',
  ].join(' ');
  let running = false;
  let destroyed = false;

  const ctl = (...args: string[]) => run(...asOwner(pgCtl, ['-D', data, ...args]), { timeout: 60_000 });
  // If the test process dies without destroy(), do not leave a server behind.
  const emergencyStop = () => {
    if (!running) return;
    try {
      execFileSync(...asOwner(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort on the way out
    }
  };
  process.once('exit', emergencyStop);

  const instance: ThrowawayPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await ctl('-l', join(dir, 'server.log'), '-o', serverOptions, '-w', '-t', '30', 'start');
      running = true;
    },
    async stop() {
      await ctl('-m', 'fast', '-w', '-t', '30', 'stop');
      running = false;
    },
    async restart() {
      await instance.stop();
      await instance.start();
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        if (running) await ctl('-m', 'immediate', '-w', 'stop');
      } finally {
        running = false;
        process.off('exit', emergencyStop);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await run(...asOwner(join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']), { timeout: 60_000 });
    await instance.start();
  } catch (error) {
    await instance.destroy().catch(() => {});
    throw error;
  }
  return instance;
}
