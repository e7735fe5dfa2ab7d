import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: taken } = server.address() as { port: number };
      server.close(() => resolve(taken));
    });
  });
}

/**
 * A TCP port free on 127.0.0.1 right now, for a server of a test's or the bench's own: the
 * kernel's choice, or one of LOOPBACK_PORTS (`55200-55299`) when set, so that runs sharing a
 * machine can keep to ranges of their own (tried from a random point, in turn; a port this
 * process was given already is given again only once every other one is taken).
 */
const handedOut = new Set<number>();
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.LOOPBACK_PORTS ?? '');
  if (!range) {
    const port = await tryListen(0);
    if (port === undefined) throw new Error('no free loopback port');
    return port;
  }
  const [first, last] = [Number(range[1]), Number(range[2])];
  const size = last - first + 1;
  const start = Math.floor(Math.random() * size);
  for (const again of [false, true]) {
    for (let i = 0; i < size; i++) {
      const candidate = first + ((start + i) % size);
      if (handedOut.has(candidate) !== again) continue;
      const port = await tryListen(candidate);
      if (port === undefined) continue;
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free loopback port in LOOPBACK_PORTS=${process.env.LOOPBACK_PORTS}`);
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
