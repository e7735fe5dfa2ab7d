import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports of LOOPBACK_PORTS this process has handed out: never twice (a server may not have bound it yet). */
const handedOut = new Set<number>();

function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A TCP port free on 127.0.0.1 right now, for a server of a test's or the bench's own: any the
 * kernel gives, or with LOOPBACK_PORTS=55300-55499 one of that range (on a machine where several
 * people's clusters each keep to ports of their own).
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.LOOPBACK_PORTS ?? '');
  if (!range) return (await tryPort(0))!;
  const [low, high] = [Number(range[1]), Number(range[2])];
  // At random, not in turn: test processes side by side then seldom pick the same one at once.
  const ports = Array.from({ length: high - low + 1 }, (_, i) => low + i)
    .filter((port) => !handedOut.has(port))
    .sort(() => Math.random() - 0.5);
  for (const port of ports) {
    if (await tryPort(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port left in LOOPBACK_PORTS=${process.env.LOOPBACK_PORTS}`);
}

/**
 * PostgreSQL's binaries and PgBouncer refuse to run as root: as root, they run as the `postgres`
 * OS user (Debian's packages create it), whose ids own their files. Undefined when not root.
 */
export function postgresOwnerIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root needs a `postgres` OS user to run PostgreSQL or PgBouncer');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
