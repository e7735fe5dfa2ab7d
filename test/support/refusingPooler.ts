import { createServer, type Server, type Socket } from 'node:net';

/** PostgreSQL's ErrorResponse message ('E'): severity, SQLSTATE and message fields, then a zero. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', code],
      ['M', message],
    ].map(([type, value]) => Buffer.from(`${type}${value}\0`, 'utf8')),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

export interface RefusingPooler {
  port: number;
  /** Connections it has refused so far. */
  refused(): number;
  close(): Promise<void>;
}

/**
 * A listener that answers every connection's startup message the way PgBouncer answers one it
 * will not take (`unsupported startup parameter: …`, SQLSTATE 08P01, then it hangs up): the
 * same bytes on the wire, without a PgBouncer whose stock settings may change under the test.
 */
export function startRefusingPooler(code: string, message: string): Promise<RefusingPooler> {
  let refused = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < received.readInt32BE(0)) return;
      refused++;
      socket.end(errorResponse(code, message));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        refused: () => refused,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}
