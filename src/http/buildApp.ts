import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import './routeDocs.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { registerAuthentication } from '../auth/authenticate.ts';
import { registerAccountRoutes } from '../accounts/accountRoutes.ts';
import { registerPaymentRoutes } from '../payments/paymentRoutes.ts';
import { registerAccountWriteRoutes } from '../accounts/accountWriteRoutes.ts';
import { registerPaymentWriteRoutes } from '../payments/paymentWriteRoutes.ts';
import type { CardProcessor } from '../payments/processor/cardProcessor.ts';
import { sandboxProcessor } from '../payments/processor/sandboxProcessor.ts';
import { schedulePurge } from '../idempotency/schedulePurge.ts';
import { memoryBoundaryCache, type BoundaryCache } from '../pagination/boundaryCache.ts';
import { registerHealthRoutes } from './healthRoutes.ts';
import { parseQueryString } from './parseQueryString.ts';
import { registerProblemRendering, sendProblem, toProblem } from './renderProblem.ts';
import { notFound } from './problem.ts';
import { requestIdOf } from './requestId.ts';

export interface AppOptions {
  config: Pick<Config, 'publicUrl' | 'trustProxy' | 'logLevel' | 'cardFingerprintSecret'>;
  processor?: CardProcessor;
  /** Where page boundaries are remembered; in-process by default, Redis to share across instances. */
  boundaries?: BoundaryCache;
  db: Db;
  /** Pino options or false; tests pass a stream to capture lines. */
  logger?: FastifyServerOptions['logger'];
}

export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'];

/** Builds the whole HTTP application on a given database; tests call this with either dialect. */
export async function buildApp({ config, db, logger, processor = sandboxProcessor, boundaries = memoryBoundaryCache() }: AppOptions): Promise<FastifyInstance> {
  let shuttingDown = false;
  const app = Fastify({
    logger: logger ?? { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    // Fastify accepts a hop count at run time; its types only list the other forms.
    trustProxy: config.trustProxy as boolean | string,
    genReqId: requestIdOf,
    // Long path segments reach the handlers, which answer a malformed id with 404 (API.md §2).
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true, maxParamLength: 1000 },
    // Errors the router raises before any route runs (an undecodable or overlong path segment)
    // are malformed identifiers: 404, rendered like every other problem.
    frameworkErrors: (error, request, reply) => {
      const problem = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? notFound('Malformed path.') : toProblem(request, error);
      return sendProblem(reply, problem);
    },
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, useDefaults: false },
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onClose', async () => {
    shuttingDown = true;
  });

  // JSON only: anything else is a 415 rather than a string the schemas then reject.
  app.removeContentTypeParser('text/plain');
  registerProblemRendering(app);
  registerAuthentication(app, db.kysely);
  registerHealthRoutes(app, db, () => shuttingDown);
  const lists = { db: db.kysely, dialect: db.dialect, boundaries };
  registerAccountRoutes(app, db, lists, config.publicUrl);
  registerPaymentRoutes(app, db, lists, config.publicUrl);
  registerAccountWriteRoutes(app, db, config.cardFingerprintSecret);
  registerPaymentWriteRoutes(app, db, processor, config.cardFingerprintSecret);
  schedulePurge(app, db.kysely);
  await app.ready();
  return app;
}
