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

export const PRODUCT_NAME = 'Accounts & Payments API v3';

/**
 * The top bar's logo: the product's name (Swagger UI's plugin shows Fastify's otherwise). Text
 * in an SVG, so it needs no font file nor anything from elsewhere.
 */
const PRODUCT_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40" viewBox="0 0 400 40" role="img" aria-label="${PRODUCT_NAME.replace('&', '&amp;')}">
<title>${PRODUCT_NAME.replace('&', '&amp;')}</title>
<text x="0" y="28" fill="#ffffff" font-family="sans-serif" font-size="24" font-weight="700">${PRODUCT_NAME.replace('&', '&amp;')}</text>
</svg>`;

/**
 * Swagger UI sets no horizontal padding on the cells of a description's tables, so a header
 * whose words fill their columns runs together ("statustitle"): space the columns apart.
 */
const THEME_CSS = '.swagger-ui .renderedMarkdown table th, .swagger-ui .renderedMarkdown table td { padding-right: 16px; }';

/** Swagger UI at /docs, reading /docs/json (the same document as /v3/openapi.json). */
export async function registerReferencePage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: DOCS_CSP,
    theme: { title: `${PRODUCT_NAME} — reference`, css: [{ filename: 'theme.css', content: THEME_CSS }] },
    logo: { type: 'image/svg+xml', content: Buffer.from(PRODUCT_LOGO), href: DOCS_PREFIX, target: '_self' },
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, displayRequestDuration: true, tryItOutEnabled: false },
    validatorUrl: false,
  });
  // The changelog on a page of its own, linked from the top of the reference (read once, at start).
  const changelog = changelogHtml();
  app.get(CHANGELOG_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-security-policy', DOCS_CSP).type('text/html; charset=utf-8').send(changelog),
  );
}
