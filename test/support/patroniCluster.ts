import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, postgresOwnerIds } from '../../scripts/support/loopbackServices.ts';
import { BIN } from './throwawayPostgres.ts';

/** What the drill runs, and the Debian package each comes in. */
const NEEDED = [
  { command: 'patroni', from: 'patroni' },
  { command: 'etcd', from: 'etcd-server' },
  { command: 'haproxy', from: 'haproxy' },
];
const SEARCHED = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin'];

function findCommand(command: string): string | undefined {
  for (const dir of SEARCHED) {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch {}
  }
  return undefined;
}

/** The packages the drill needs that are not installed (empty: it can run). */
export function missingDrillPackages(): string[] {
  const missing = NEEDED.filter((n) => !findCommand(n.command)).map((n) => n.from);
  try {
    accessSync(join(BIN, 'initdb'), constants.X_OK);
  } catch {
    missing.push(`PostgreSQL's server binaries (${BIN}, PG_BIN_DIR)`);
  }
  return missing;
}

export interface PatroniNode {
  name: string;
  /** PostgreSQL's port. */
  port: number;
  /** Patroni's REST API, `http://127.0.0.1:<port>`. */
  rest: string;
  /** SIGKILL to its Patroni and its PostgreSQL at once: the node dies as its host would. */
  kill(): void;
}

export interface PatroniCluster {
  nodes: PatroniNode[];
  /** libpq's multi-host URL naming every node. */
  multiHostUrl: string;
  /** HAProxy in front, sending connections to the node whose Patroni answers 200 to `/primary`. */
  haproxyUrl: string;
  /** The node that holds the leader key and runs, once there is one. */
  leader(timeoutMs?: number): Promise<PatroniNode>;
  /** Waits until `name` streams and is the synchronous standby (a write acknowledged by the leader is on it). */
  synchronous(name: string, timeoutMs?: number): Promise<void>;
  /** Patroni's planned switchover (its REST API, as `patronictl switchover` does). */
  switchover(from: string, to: string): Promise<void>;
  destroy(): Promise<void>;
}

interface Member {
  name: string;
  role: string;
  state: string;
}

async function members(rest: string): Promise<Member[]> {
  const response = await fetch(`${rest}/cluster`, { signal: AbortSignal.timeout(2000) });
  return ((await response.json()) as { members: Member[] }).members;
}

/**
 * Two PostgreSQL nodes under Patroni (Debian's packages), one etcd, and HAProxy, on loopback ports
 * in a temp directory: synchronous_mode, so an acknowledged commit is on the standby; a leader key
 * of 10 s (`ttl`), so a dead leader is replaced within about that. PostgreSQL and Patroni run as
 * the `postgres` OS user when this is root. Nothing of the machine's own server is touched.
 */
export async function startPatroniCluster(): Promise<PatroniCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-patroni-'));
  const ids = postgresOwnerIds();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const children: ChildProcess[] = [];
  const logs = new Map<string, string>();
  const launch = (name: string, command: string, args: string[], asPostgres: boolean) => {
    const child = spawn(command, args, {
      cwd: dir,
      env: { ...process.env, HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asPostgres && ids ? { uid: ids.uid, gid: ids.gid } : {}),
    });
    logs.set(name, '');
    const keep = (chunk: Buffer) => logs.set(name, (logs.get(name)! + chunk).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    children.push(child);
    return child;
  };
  const emergencyStop = () => {
    for (const child of children) child.kill('SIGKILL');
    for (const name of ['n1', 'n2']) {
      const pid = postmasterPid(join(dir, name));
      if (pid) killGone(pid);
    }
  };
  process.once('exit', emergencyStop);

  const [etcdClient, etcdPeer, haproxyPort] = [await freePort(), await freePort(), await freePort()];
  const nodes: Array<PatroniNode & { child?: ChildProcess; config: string }> = [];
  for (const name of ['n1', 'n2']) {
    const [port, restPort] = [await freePort(), await freePort()];
    const config = join(dir, `${name}.yml`);
    writeFileSync(config, patroniConfig(dir, name, port, restPort, etcdClient));
    if (ids) chownSync(config, ids.uid, ids.gid);
    nodes.push({
      name,
      port,
      rest: `http://127.0.0.1:${restPort}`,
      config,
      kill() {
        const postmaster = postmasterPid(join(dir, name));
        this.child?.kill('SIGKILL');
        if (postmaster) killGone(postmaster);
      },
    });
  }
  const haproxyConfig = join(dir, 'haproxy.cfg');
  writeFileSync(haproxyConfig, haproxyText(haproxyPort, nodes));

  const cluster: PatroniCluster = {
    nodes,
    multiHostUrl: `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/postgres`,
    haproxyUrl: `postgres://postgres@127.0.0.1:${haproxyPort}/postgres`,
    async leader(timeoutMs = 60_000) {
      for (const begun = performance.now(); performance.now() - begun < timeoutMs; await sleep(200)) {
        for (const node of nodes) {
          const found = await members(node.rest).catch(() => []);
          const leader = found.find((m) => m.role === 'leader' && m.state === 'running');
          if (leader) return nodes.find((n) => n.name === leader.name)!;
        }
      }
      throw new Error(`no Patroni leader within ${timeoutMs} ms\n${[...logs].map(([n, l]) => `--- ${n}\n${l.slice(-3000)}`).join('\n')}`);
    },
    async synchronous(name, timeoutMs = 90_000) {
      for (const begun = performance.now(); performance.now() - begun < timeoutMs; await sleep(200)) {
        for (const node of nodes) {
          const found = await members(node.rest).catch(() => []);
          // Patroni names it so once pg_stat_replication says `sync` (state `streaming` since 3.0.4, `running` before).
          if (found.some((m) => m.name === name && m.role === 'sync_standby' && ['streaming', 'running'].includes(m.state))) return;
        }
      }
      throw new Error(`${name} did not become the synchronous standby within ${timeoutMs} ms\n${logs.get(name)?.slice(-3000)}`);
    },
    async switchover(from, to) {
      const node = nodes.find((n) => n.name === from)!;
      const response = await fetch(`${node.rest}/switchover`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ leader: from, candidate: to }),
      });
      if (!response.ok) throw new Error(`switchover refused: ${response.status} ${await response.text()}`);
    },
    async destroy() {
      process.off('exit', emergencyStop);
      for (const child of children) child.kill('SIGTERM');
      await sleep(1000);
      emergencyStop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    mkdirSync(join(dir, 'etcd'));
    launch(
      'etcd',
      findCommand('etcd')!,
      [
        '--name=drill',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=drill=http://127.0.0.1:${etcdPeer}`,
        '--log-level=warn',
      ],
      false,
    );
    // The first node bootstraps (initdb) and leads; the second then clones it (pg_basebackup).
    nodes[0]!.child = launch('n1', findCommand('patroni')!, [nodes[0]!.config], true);
    await cluster.leader(90_000);
    nodes[1]!.child = launch('n2', findCommand('patroni')!, [nodes[1]!.config], true);
    await cluster.synchronous('n2');
    launch('haproxy', findCommand('haproxy')!, ['-f', haproxyConfig, '-db'], false);
  } catch (error) {
    await cluster.destroy().catch(() => {});
    throw error;
  }
  return cluster;
}

/** SIGKILL, whether or not it is still there. */
function killGone(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function patroniConfig(dir: string, name: string, port: number, restPort: number, etcdPort: number): string {
  return `scope: drill
name: ${name}
restapi:
  listen: 127.0.0.1:${restPort}
  connect_address: 127.0.0.1:${restPort}
etcd3:
  hosts: 127.0.0.1:${etcdPort}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_log_hints: 'on'
        max_connections: 60
  initdb:
    - encoding: UTF8
    - locale: C
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${port}
  connect_address: 127.0.0.1:${port}
  data_dir: ${join(dir, name)}
  bin_dir: ${BIN}
  pgpass: ${join(dir, `${name}.pgpass`)}
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
  parameters:
    unix_socket_directories: '${dir}'
    fsync: 'off'
    full_page_writes: 'off'
`;
}

function haproxyText(port: number, nodes: Array<{ name: string; port: number; rest: string }>): string {
  const servers = nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.port} check port ${new URL(n.rest).port}`).join('\n');
  return `global
  maxconn 200
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:${port}
  option httpchk
  http-check send meth OPTIONS uri /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${servers}
`;
}
