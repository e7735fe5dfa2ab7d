import { createServer, connect, type AddressInfo, type Server } from 'node:net';

/** What the service said to PostgreSQL, counted from the wire. */
export interface WireCounts {
  /** Messages that end a round trip: Sync (extended protocol) and Query (simple protocol). */
  roundTrips: number;
  /** Statements executed: Execute messages, and simple-protocol Query messages. */
  statements: number;
}

export interface WireCounter {
  /** The proxy's port on 127.0.0.1; point the service's DATABASE_URL at it. */
  port: number;
  counts(): WireCounts;
  close(): Promise<void>;
}

/**
 * A pass-through TCP proxy in front of PostgreSQL that reads the frontend's messages (a type byte
 * and a 32-bit length each, after the untyped startup message) and counts round trips and
 * statements. The profile reports them per request: what a request costs in conversations with
 * the database, which a CPU profile of the service cannot show.
 */
export async function startPgWireCounter(target: { host: string; port: number }): Promise<WireCounter> {
  const totals: WireCounts = { roundTrips: 0, statements: 0 };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    let pending = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (!started) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          // An SSLRequest (80877103) is answered 'N' and followed by the real startup message.
          if (pending.readInt32BE(4) !== 80877103) started = true;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < length + 1) break;
        const type = String.fromCharCode(pending[0]);
        if (type === 'S' || type === 'Q') totals.roundTrips++;
        if (type === 'E' || type === 'Q') totals.statements++;
        pending = pending.subarray(length + 1);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    port: (server.address() as AddressInfo).port,
    counts: () => ({ ...totals }),
    close: () => new Promise((done) => server.close(() => done())),
  };
}
