import type { FastifyInstance } from 'fastify';
import type { WebhookSettings } from '../config/loadConfig.ts';
import type { Db } from '../db/database.ts';
import type { ListContext } from '../lists/index.ts';
import { purgeExpiredEvents } from '../events/purgeEvents.ts';
import { startDeliverySender } from './deliverySender.ts';
import { registerEndpointRoutes } from './endpointRoutes.ts';
import { registerEventRoutes } from './eventRoutes.ts';
import { systemResolveHost, type ResolveHost } from './targetSafety.ts';

const PURGE_EVERY_MS = 10 * 60 * 1000;

/**
 * Events and webhooks in one app: the routes, the retention purge, and (unless WEBHOOK_SENDER=off)
 * the delivery sender, which runs in every process that serves (SQLite: in-process; PostgreSQL:
 * every instance and worker claims with SKIP LOCKED) and is stopped, in-flight attempts finished,
 * when the app closes (SIGTERM).
 */
export function registerWebhooks(
  app: FastifyInstance,
  db: Db,
  lists: ListContext,
  publicUrl: string | undefined,
  settings: WebhookSettings,
  resolveHost: ResolveHost = systemResolveHost,
): void {
  registerEventRoutes(app, db, lists, publicUrl);
  registerEndpointRoutes(app, db, lists, publicUrl, settings.allowPrivateTargets, resolveHost);
  const purge = () => purgeExpiredEvents(db, settings.eventRetentionDays).catch((err) => app.log.warn({ err }, 'event purge failed'));
  const timer = setInterval(purge, PURGE_EVERY_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  if (!settings.sender) return;
  const sender = startDeliverySender(db, settings, app.log);
  app.addHook('onClose', () => sender.stop());
}
