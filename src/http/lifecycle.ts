import type { FastifyInstance } from 'fastify';
import { serviceUnavailable } from '../core/problem.ts';

/**
 * serving → draining (readiness says no so load balancers stop sending; requests are still
 * served, each answered with `Connection: close` so clients reconnect elsewhere) → closing
 * (the listener is closed; anything still arriving on an open connection gets a 503 problem;
 * in-flight requests finish).
 */
export type LifecycleState = 'serving' | 'draining' | 'closing';

export interface Lifecycle {
  state(): LifecycleState;
  /** Readiness turns 503 from now on; the app keeps serving until it is closed. */
  startDraining(): void;
}

export function registerLifecycle(app: FastifyInstance): Lifecycle {
  let state: LifecycleState = 'serving';
  app.addHook('onRequest', (_request, _reply, done) => {
    if (state !== 'closing') return done();
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
  return {
    state: () => state,
    startDraining() {
      if (state === 'serving') state = 'draining';
    },
  };
}
