import { createServer, type Server, type Socket } from 'node:net';

/** A backend message: its type byte, its length, its body. */
function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

export interface HangingUpPooler {
  port: number;
  /** Statements it was sent (and hung up on). */
  hungUp(): number;
  close(): Promise<void>;
}

/**
 * A listener that lets every client log in (AuthenticationOk, ReadyForQuery: what PgBouncer does
 * before it has a server connection) and hangs up on its first statement, as PgBouncer does when
 * the server behind it is gone: the client's connection ends while a statement is out.
 */
export function startHangingUpPooler(): Promise<HangingUpPooler> {
  let hungUp = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let loggedIn = false;
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      if (loggedIn) {
        hungUp++;
        socket.destroy();
        return;
      }
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < received.readInt32BE(0)) return;
      loggedIn = true;
      const authOk = Buffer.alloc(4);
      socket.write(Buffer.concat([message('R', authOk), message('Z', Buffer.from('I'))]));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        hungUp: () => hungUp,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}
