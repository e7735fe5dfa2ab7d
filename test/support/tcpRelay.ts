import { createConnection, createServer, type Socket } from 'node:net';
import { freePort } from '../../scripts/support/loopbackServices.ts';

export interface TcpRelay {
  /** The loopback port it listens on: point a client (or a standby's `primary_conninfo`) here. */
  port: number;
  /**
   * From now on no byte is passed, either way, on any connection, old or new, and nothing is
   * closed or reset: a host gone without a word (a dropped route, a dead VM). A new connection
   * is accepted (the kernel does that) and then hears nothing.
   */
  blackhole(): void;
  /** Bytes flow again; what was held in the sockets' buffers meanwhile arrives, as TCP retransmits it. */
  resume(): void;
  /** Connections opened through it so far. */
  opened(): number;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
}

/**
 * A TCP relay on a loopback port of its own to `upstreamPort`, in the test process, that can be
 * made to stop passing bytes without a reset. While stopped, neither side is read: what the
 * peers write stays in the kernels' buffers (as unacknowledged data would on a real route), and
 * neither learns anything, not even that the other closed.
 */
export async function startTcpRelay(upstreamPort: number): Promise<TcpRelay> {
  const pairs = new Set<Pair>();
  let holding = false;
  let opened = 0;
  const hold = (pair: Pair) => {
    pair.client.pause();
    pair.server.pause();
  };
  const pass = (pair: Pair) => {
    pair.client.resume();
    pair.server.resume();
  };
  const relay = createServer((client) => {
    opened++;
    const server = createConnection({ port: upstreamPort, host: '127.0.0.1' });
    const pair = { client, server };
    pairs.add(pair);
    const forward = (from: Socket, to: Socket) => {
      from.on('data', (chunk) => {
        if (!to.write(chunk)) {
          from.pause();
          to.once('drain', () => !holding && from.resume());
        }
      });
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        to.destroy();
        pairs.delete(pair);
      });
    };
    forward(client, server);
    forward(server, client);
    if (holding) hold(pair);
  });
  const port = await freePort();
  await new Promise<void>((ready) => relay.listen(port, '127.0.0.1', ready));
  return {
    port,
    blackhole() {
      holding = true;
      for (const pair of pairs) hold(pair);
    },
    resume() {
      holding = false;
      for (const pair of pairs) pass(pair);
    },
    opened: () => opened,
    close: () =>
      new Promise((done) => {
        for (const { client, server } of pairs) {
          client.destroy();
          server.destroy();
        }
        relay.close(() => done());
      }),
  };
}
