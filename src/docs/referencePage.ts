import type { FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';
import { CHANGELOG_PATH, changelogHtml } from './changelogPage.ts';

export const DOCS_PREFIX = '/docs';

/**
 * The reference page's own Content-Security-Policy. Everything it loads comes from this
 * server (swagger-ui-dist ships in node_modules: no CDN); Swagger UI sets inline styles and
 * embeds SVG icons as data: URLs, and "Try it out" calls this same origin.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Swagger UI at /docs, reading /docs/json (the same document as /v3/openapi.json). */
export async function registerReferencePage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: DOCS_CSP,
    theme: { title: 'Accounts & Payments API v3 — reference' },
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, displayRequestDuration: true, tryItOutEnabled: false },
    validatorUrl: false,
  });
  // The changelog on a page of its own, linked from the top of the reference (read once, at start).
  const changelog = changelogHtml();
  app.get(CHANGELOG_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-security-policy', DOCS_CSP).type('text/html; charset=utf-8').send(changelog),
  );
}
