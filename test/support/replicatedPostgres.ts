import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, postgresOwnerIds as ownerIds } from '../../scripts/support/loopbackServices.ts';
import { asOwner, BIN } from './throwawayPostgres.ts';

const run = promisify(execFile);
/** Synchronous: a commit is acknowledged once the standby has it. */
const PRIMARY_SETTINGS = ["-c synchronous_standby_names='*'"];

export interface ClusterNode {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  /** Kills it as a crash would (`pg_ctl -m immediate stop`: no shutdown checkpoint, sessions cut). */
  crash(): Promise<void>;
  /** A standby made the primary (`pg_ctl promote`, waiting until it takes writes). */
  promote(): Promise<void>;
  /** Started again after crash(), as it was (a standby streams from the primary again). */
  restart(): Promise<void>;
}

export interface ReplicatedPostgres {
  primary: ClusterNode;
  standby: ClusterNode;
  /** libpq's multi-host URL naming both, the primary first. */
  url: string;
  /** Stops whatever still runs and removes every file. Safe to call twice. */
  destroy(): Promise<void>;
}

export interface ReplicationOptions {
  /** A commit waits for the standby (the default); off, the primary takes writes whatever the standby does. */
  synchronous?: boolean;
  /** The port the standby streams from, given the primary's: a relay in between (the primary's own port by default). */
  streamVia?: (primaryPort: number) => Promise<number>;
}

/**
 * A primary and a streaming standby of their own (Debian's server binaries, loopback ports, a temp
 * directory): `initdb`, then `pg_basebackup -R` for the standby, with synchronous replication
 * (`synchronous_standby_names = '*'`), so a write acknowledged by the primary is on the standby,
 * unless `synchronous` is false. For the failover drill; the machine's shared server is never touched.
 */
export async function startReplicatedPostgres(options: ReplicationOptions = {}): Promise<ReplicatedPostgres> {
  const synchronous = options.synchronous ?? true;
  const primarySettings = synchronous ? PRIMARY_SETTINGS : [];
  if (!existsSync(join(BIN, 'initdb'))) throw new Error(`PostgreSQL server binaries not found in ${BIN} (set PG_BIN_DIR)`);
  const dir = mkdtempSync(join(tmpdir(), 'payments-pg-pair-'));
  const ids = ownerIds();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const pgCtl = join(BIN, 'pg_ctl');
  const running = new Set<string>();
  let destroyed = false;
  const common = [`-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c fsync=off', '-c full_page_writes=off', '-c max_connections=60'];

  const ctl = (data: string, ...args: string[]) => run(...asOwner(pgCtl, ['-D', data, ...args]), { timeout: 60_000 });
  const start = async (data: string, port: number, extra: string[]) => {
    await ctl(data, '-l', `${data}.log`, '-o', [`-p ${port}`, ...common, ...extra].join(' '), '-w', '-t', '30', 'start');
    running.add(data);
  };
  const emergencyStop = () => {
    for (const data of running) {
      try {
        execFileSync(...asOwner(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
      } catch {
        // best effort on the way out
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', emergencyStop);

  const node = (data: string, port: number, extra: string[] = []): ClusterNode => ({
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async crash() {
      await ctl(data, '-m', 'immediate', '-w', 'stop');
      running.delete(data);
    },
    async promote() {
      await ctl(data, '-w', '-t', '30', 'promote');
    },
    async restart() {
      await start(data, port, extra);
    },
  });
  const primaryData = join(dir, 'primary');
  const standbyData = join(dir, 'standby');
  const cluster: ReplicatedPostgres = {
    primary: node(primaryData, primaryPort, primarySettings),
    standby: node(standbyData, standbyPort),
    url: `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/postgres`,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        for (const data of running) await ctl(data, '-m', 'immediate', '-w', 'stop').catch(() => {});
      } finally {
        running.clear();
        process.off('exit', emergencyStop);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await run(...asOwner(join(BIN, 'initdb'), ['-D', primaryData, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']), {
      timeout: 60_000,
    });
    // Synchronous: a commit is acknowledged once the standby has it (initdb's pg_hba lets loopback replicate).
    await start(primaryData, primaryPort, primarySettings);
    await run(
      ...asOwner(join(BIN, 'pg_basebackup'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(primaryPort),
        '-U',
        'postgres',
        '-D',
        standbyData,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ]),
      { timeout: 60_000 },
    );
    if (options.streamVia) {
      // The last setting of a name in the file wins over the one `-R` wrote.
      const via = await options.streamVia(primaryPort);
      appendFileSync(join(standbyData, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${via} user=postgres application_name=standby'\n`);
    }
    await start(standbyData, standbyPort, []);
    // Streaming (and synchronous, when asked) before anything is written.
    const admin = new pg.Client({ connectionString: cluster.primary.url });
    await admin.connect();
    try {
      for (let tries = 0; ; tries++) {
        const { rows } = await admin.query<{ sync_state: string }>('select sync_state from pg_stat_replication');
        if (rows[0]?.sync_state === (synchronous ? 'sync' : 'async')) break;
        if (tries > 200) throw new Error(`the standby did not become synchronous: ${JSON.stringify(rows)}`);
        await new Promise((resume) => setTimeout(resume, 100));
      }
    } finally {
      await admin.end();
    }
  } catch (error) {
    await cluster.destroy().catch(() => {});
    throw error;
  }
  return cluster;
}
