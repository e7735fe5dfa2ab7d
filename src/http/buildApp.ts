import type { ListTuning } from '../lists/index.ts';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import './routeDocs.ts';
import type { Redis } from 'ioredis';
import { DEFAULT_LIMITS, DEFAULT_WEBHOOK_SETTINGS, type Config, type ResourceLimits, type WebhookSettings } from '../config/loadConfig.ts';
import type { Db } from '../db/database.ts';
import type { ReadRouting } from '../db/readReplicas.ts';
import { registerWritePositionRecording } from './writePositionRecording.ts';
import { registerAuthentication } from '../auth/authenticate.ts';
import { registerAccountRoutes } from '../accounts/accountRoutes.ts';
import { registerPaymentRoutes } from '../payments/paymentRoutes.ts';
import { registerAccountWriteRoutes } from '../accounts/accountWriteRoutes.ts';
import { registerPaymentWriteRoutes } from '../payments/paymentWriteRoutes.ts';
import { registerAccountExportRoutes } from '../accounts/accountExportRoutes.ts';
import { registerPaymentExportRoutes } from '../payments/paymentExportRoutes.ts';
import { ExportSlots } from '../exports/exportSlots.ts';
import type { CardProcessor } from '../payments/processor/cardProcessor.ts';
import { sandboxProcessor } from '../payments/processor/sandboxProcessor.ts';
import { schedulePurge } from '../idempotency/schedulePurge.ts';
import { DEFAULT_FOLD_SETTINGS, startCountFolder, type FoldSettings } from '../lists/index.ts';
import { registerHealthRoutes } from './healthRoutes.ts';
import { registerFrontDoor } from '../reference/frontDoor.ts';
import { parseQueryString, rejectBadQuery } from './parseQueryString.ts';
import { registerAllowedMethods } from './allowedMethods.ts';
import { registerProblemRendering, sendProblem, toProblem } from './renderProblem.ts';
import { clientErrorHandler, registerProtocolChecks } from './protocolErrors.ts';
import { rateLimits } from '../limits/rateLimits.ts';
import { registerSecurityHeaders } from '../limits/securityHeaders.ts';
import { notFound } from '../core/problem.ts';
import { ISSUE_KEYWORDS } from '../core/schemaIssues.ts';
import { requestIdOf } from './requestId.ts';
import { registerOpenApi } from '../reference/openapiDocument.ts';
import { registerReferencePage } from '../reference/referencePage.ts';
import { registerRepresentation } from './entityTagsAndCompression.ts';
import { registerCors } from './cors.ts';
import { registerDeprecationHeaders } from '../versioning/deprecation.ts';
import { registerServerTiming } from './serverTiming.ts';
import { loggerOptions, prettyLogs } from './logRedaction.ts';
import { rejectInvalidTextInBody } from './invalidText.ts';
import { registerJsonBodyParser } from './jsonBody.ts';
import { registerLifecycle, type Lifecycle } from './lifecycle.ts';
import { registerMetrics } from '../metrics/registerMetrics.ts';
import { registerWebhooks } from '../webhooks/registerWebhooks.ts';
import type { ResolveHost } from '../webhooks/targetSafety.ts';

export interface AppOptions {
  config: Pick<Config, 'publicUrl' | 'trustProxy' | 'logLevel' | 'cardFingerprintSecret'> &
    Partial<Pick<Config, 'corsOrigins' | 'logFormat' | 'readyTimeoutMs'>> & { limits?: Partial<ResourceLimits>; webhooks?: Partial<WebhookSettings> };
  processor?: CardProcessor;
  db: Db;
  /** Pino options or false; tests pass a stream to capture lines. */
  logger?: FastifyServerOptions['logger'];
  /** REDIS_URL's client: rate-limit counters shared by every instance (in-process without it). */
  redis?: Redis;
  /** Prefix of this app's rate-limit keys in Redis. */
  rateLimitPrefix?: string;
  /** How deep list pages are found; tests lower the thresholds to reach those paths on small lists. */
  listTuning?: ListTuning;
  /** Read replicas (DATABASE_REPLICA_URLS): where tenants' reads run; all on `db` when absent. */
  reads?: ReadRouting;
  /** Prometheus metrics at /metrics (default on; METRICS=off). */
  metrics?: boolean;
  /** The fold of list changes into the counts (countFolder.ts); false: none runs (tests of the changes left unfolded). */
  countFold?: Partial<FoldSettings> | false;
  /** How a webhook URL's host name is resolved when it is saved (the system's resolver; tests pass a fixed table). */
  resolveHost?: ResolveHost;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Draining and closing (readiness, refusal of new work); see lifecycle.ts. */
    lifecycle: Lifecycle;
  }
}

/** Builds the whole HTTP application on a given database; tests call this with either dialect. */
export async function buildApp({
  config,
  db,
  logger,
  processor = sandboxProcessor,
  redis,
  rateLimitPrefix,
  metrics = true,
  listTuning,
  resolveHost,
  reads,
  countFold = {},
}: AppOptions): Promise<FastifyInstance> {
  const limits = { ...DEFAULT_LIMITS, ...config.limits };
  const app = Fastify({
    bodyLimit: limits.bodyLimit,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    // Given to Node at creation too: only then does it cap headersTimeout by it and enforce it.
    // Node checks on an interval (30 s by default), so keep that a fraction of the limit.
    http: {
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(limits.requestTimeoutMs / 4) || 30_000)),
      // Refused by our own hook instead, as a problem document (protocolErrors.ts).
      requireHostHeader: false,
    },
    clientErrorHandler,
    logger: logger ?? loggerOptions(config.logLevel, prettyLogs(config.logFormat)),
    // Fastify accepts a hop count at run time; its types only list the other forms.
    trustProxy: config.trustProxy as boolean | string | string[],
    genReqId: requestIdOf,
    // Requests arriving while closing get our own 503 problem (lifecycle.ts), not Fastify's plain one.
    return503OnClosing: false,
    // Long path segments reach the handlers, which answer a malformed id with 404 (API.md §2).
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true, maxParamLength: 1000 },
    // Errors the router raises before any route runs (an undecodable or overlong path segment)
    // are malformed identifiers: 404, rendered like every other problem.
    frameworkErrors: (error, request, reply) => {
      const problem = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? notFound('Malformed path.') : toProblem(request, error);
      // No hook ran for this request: give it the id the first hook would have set (sendProblem adds the security headers).
      reply.header('x-request-id', request.id);
      return sendProblem(reply, problem);
    },
    ajv: {
      // allErrors and verbose: a 422 lists every problem of a body at once, each worded from the
      // schema it broke (core/schemaIssues.ts), which may name its own sentence and code.
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, verbose: true, useDefaults: false, keywords: ISSUE_KEYWORDS },
    },
  });

  // Hooks with nothing to wait for are written with `done`: an async hook costs every request a
  // promise and a turn of the microtask queue (a small page runs a dozen hooks).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerProtocolChecks(app);
  app.decorate('lifecycle', registerLifecycle(app));
  registerServerTiming(app);

  // JSON only: anything else is a 415 rather than a string the schemas then reject.
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);
  registerProblemRendering(app);
  registerAllowedMethods(app);
  // Security headers first: /docs then replaces the JSON API's CSP with a page's own.
  registerSecurityHeaders(app);
  // Before any route: these work through onRoute (documentation, compression, ETags).
  await registerCors(app, config.corsOrigins ?? []);
  await registerOpenApi(app);
  await registerRepresentation(app);
  registerDeprecationHeaders(app);
  await registerReferencePage(app);
  const rateLimit = await rateLimits(app, {
    perKey: limits.rateLimitPerKey,
    perIp: limits.rateLimitPerIp,
    windowMs: limits.rateLimitWindowMs,
    redis,
    redisPrefix: rateLimitPrefix,
  });
  // Order matters: cheap refusals (per-address budget, query bounds) before the key lookup.
  app.addHook('onRequest', rateLimit.perAddress);
  app.addHook('onRequest', rejectBadQuery);
  registerAuthentication(app, db.kysely, (reads?.replicas.length ?? 0) > 0);
  app.addHook('onRequest', rateLimit.perKey);
  app.addHook('preValidation', rejectInvalidTextInBody);
  if (metrics) registerMetrics(app, db, reads);
  if (reads) registerWritePositionRecording(app, reads);
  registerHealthRoutes(app, db, () => app.lifecycle.state() !== 'serving', config.readyTimeoutMs);
  registerFrontDoor(app);
  const lists = { db, ...(listTuning ? { tuning: listTuning } : {}), ...(reads ? { reads } : {}) };
  registerAccountRoutes(app, db, lists, config.publicUrl);
  registerPaymentRoutes(app, db, lists, config.publicUrl);
  const exports = { db, slots: new ExportSlots(limits.exportsPerKey), statementTimeoutMs: limits.exportStatementTimeoutMs, ...(reads ? { reads } : {}) };
  registerAccountExportRoutes(app, exports);
  registerPaymentExportRoutes(app, exports);
  registerAccountWriteRoutes(app, db, config.cardFingerprintSecret);
  registerPaymentWriteRoutes(app, db, processor, config.cardFingerprintSecret);
  registerWebhooks(app, db, lists, config.publicUrl, { ...DEFAULT_WEBHOOK_SETTINGS, ...config.webhooks }, resolveHost);
  schedulePurge(app, db.kysely);
  if (countFold !== false) {
    const folder = startCountFolder(db, app.log, { ...DEFAULT_FOLD_SETTINGS, ...countFold });
    app.addHook('onClose', () => folder.stop());
  }
  await app.ready();
  return app;
}
