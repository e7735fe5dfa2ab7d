import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * SIGTERM: readiness turns 503 at once; for `drainMs` the instance keeps serving (a load
 * balancer needs a health-check interval or two to notice) with `Connection: close` on every
 * response; then the listener closes, in-flight requests finish, late arrivals on open
 * connections get a 503 problem, and only then the database pool closes (`release`).
 */
export async function shutDownGracefully(
  app: FastifyInstance,
  { signal, drainMs, release }: { signal: string; drainMs: number; release: () => Promise<void> },
): Promise<void> {
  app.lifecycle.startDraining();
  app.log.info({ signal, drainMs }, 'draining: readiness is off');
  if (drainMs > 0) await sleep(drainMs);
  app.log.info('closing: no new connections; finishing in-flight requests');
  await app.close();
  await release();
  app.log.info('closed');
}
