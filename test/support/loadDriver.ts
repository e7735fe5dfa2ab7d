import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';

export interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  key: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** What the caller wants to remember about it (e.g. the reference it sent). */
  tag?: string;
}

export interface Outcome {
  call: Call;
  /** Sent as X-Request-Id: the server logs it with every line about this request. */
  requestId: string;
  startedAt: number;
  endedAt: number;
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: string;
  /** A network-level failure: no HTTP response at all (ECONNREFUSED, ECONNRESET, timeout…). */
  error?: string;
  /** The request went out on a kept-alive connection (a reset there is the classic idle-close race). */
  reusedSocket?: boolean;
}

/** One HTTP request over node:http (not fetch), so network errors and headers are seen as they are. */
export function send(origin: string, call: Call, agent: Agent, timeoutMs = 15_000): Promise<Outcome> {
  const startedAt = performance.now();
  const requestId = randomUUID();
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  return new Promise((resolve) => {
    const req = httpRequest(
      new URL(call.path, origin),
      {
        method: call.method,
        agent,
        headers: {
          authorization: `Bearer ${call.key}`,
          'x-request-id': requestId,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...call.headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ call, requestId, startedAt, endedAt: performance.now(), status: res.statusCode, headers: res.headers, body }));
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ call, requestId, startedAt, endedAt: performance.now(), error: `response: ${error.code ?? error.message}` }),
        );
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('client timeout'), { code: 'CLIENT_TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ call, requestId, startedAt, endedAt: performance.now(), error: error.code ?? error.message, reusedSocket: req.reusedSocket }),
    );
    req.end(payload);
  });
}

export interface LoadRun {
  outcomes: Outcome[];
  /** Stops issuing new calls and waits for the ones in flight. */
  stop(): Promise<Outcome[]>;
}

/**
 * `concurrency` loops, each sending `next()` after the previous answer, until stopped, until
 * `next` returns undefined, or (per loop) until `retireOn` says so. Bounded by construction: at most `concurrency` requests in flight.
 */
export function driveLoad(
  origin: string | (() => string),
  concurrency: number,
  next: (worker: number) => Call | undefined,
  options: { agent?: Agent; retireOn?: (outcome: Outcome) => boolean } = {},
): LoadRun {
  const agent = options.agent ?? new Agent({ keepAlive: true });
  const outcomes: Outcome[] = [];
  let stopped = false;
  const loops = Array.from({ length: concurrency }, async (_, worker) => {
    while (!stopped) {
      const call = next(worker);
      if (!call) return;
      const outcome = await send(typeof origin === 'string' ? origin : origin(), call, agent);
      outcomes.push(outcome);
      // A client told to go elsewhere (as a load balancer would route it) stops here.
      if (options.retireOn?.(outcome)) return;
    }
  });
  return {
    outcomes,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      agent.destroy();
      return outcomes;
    },
  };
}
