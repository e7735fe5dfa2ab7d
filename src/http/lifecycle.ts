import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serviceUnavailable } from '../core/problem.ts';

/**
 * serving → draining (readiness says no so load balancers stop sending; requests are still
 * served, each answered with `Connection: close` so clients reconnect elsewhere) → closing
 * (the listener is closed; anything still arriving on an open connection gets a 503 problem;
 * in-flight requests finish).
 */
export type LifecycleState = 'serving' | 'draining' | 'closing';

/** A request being answered, as a shutdown that cuts it names it. */
export interface InFlightRequest {
  method: string;
  url: string;
  id: string;
  runningMs: number;
}

export interface Lifecycle {
  state(): LifecycleState;
  /** Readiness turns 503 from now on; the app keeps serving until it is closed. */
  startDraining(): void;
  /** Requests being answered now: an export streams for as long as its client reads. */
  inFlight(): InFlightRequest[];
  /** Ends every request in flight by destroying its connection: an export stops reading as when its client leaves. */
  cutInFlight(): void;
}

export function registerLifecycle(app: FastifyInstance): Lifecycle {
  let state: LifecycleState = 'serving';
  const answering = new Map<FastifyRequest, number>();
  app.addHook('onRequest', (request, reply, done) => {
    if (state !== 'closing') {
      answering.set(request, performance.now());
      // 'close' also when the connection is lost or cut before the response ends.
      reply.raw.once('close', () => answering.delete(request));
      return done();
    }
    const problem = serviceUnavailable('This instance is shutting down; retry on another.');
    problem.headers.connection = 'close';
    done(problem);
  });
  // Also reaches responses to requests that were already in flight when draining began.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (state !== 'serving') reply.header('connection', 'close');
    done(null, payload);
  });
  // Closing starts the moment close() is called. A preClose hook runs only once Fastify's own
  // close step is reached, some ticks later behind the plugins' close work, and a request could
  // slip through in between.
  const close = app.close.bind(app);
  app.close = ((...args: Parameters<typeof close>) => {
    state = 'closing';
    return close(...args);
  }) as typeof app.close;
  app.addHook('onResponse', (request, _reply, done) => {
    answering.delete(request);
    done();
  });
  return {
    state: () => state,
    startDraining() {
      if (state === 'serving') state = 'draining';
    },
    inFlight: () =>
      [...answering].map(([request, since]) => ({
        method: request.method,
        url: request.url,
        id: request.id,
        runningMs: Math.round(performance.now() - since),
      })),
    cutInFlight() {
      for (const request of answering.keys()) request.raw.destroy();
    },
  };
}
