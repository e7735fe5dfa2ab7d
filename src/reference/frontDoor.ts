import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { apiVersion } from './apiDescription.ts';
import { CHANGELOG_PATH } from './changelogPage.ts';
import { OPENAPI_PATH } from './openapiDocument.ts';
import { DOCS_PREFIX, PRODUCT_NAME } from './referencePage.ts';

/** Where a person or a tool starting at the root goes next. */
const LINKS = {
  reference: DOCS_PREFIX,
  openapi: OPENAPI_PATH,
  changelog: CHANGELOG_PATH,
  health: '/health',
  ready: '/ready',
} as const;

/** What `GET /` answers (read once: the version comes from the changelog). */
export const FRONT_DOOR_INDEX = { name: PRODUCT_NAME, version: apiVersion(), links: LINKS };

const Index = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    links: Type.Object(Object.fromEntries(Object.keys(LINKS).map((name) => [name, Type.String()]))),
  },
  { examples: [FRONT_DOOR_INDEX] },
);

/**
 * `GET /`: what this is and where to go (the reference, the OpenAPI document, health), in JSON;
 * `GET /openapi.json`, where tools look first, redirects to the versioned document.
 */
export function registerFrontDoor(app: FastifyInstance): void {
  app.get(
    '/',
    {
      schema: {
        summary: 'Index: links to the reference, the OpenAPI document and health',
        operationId: 'getIndex',
        tags: ['operations'],
        response: { 200: Index },
      },
    },
    async () => FRONT_DOOR_INDEX,
  );
  app.get(
    '/openapi.json',
    {
      schema: {
        summary: `Redirects to ${LINKS.openapi}`,
        operationId: 'redirectToOpenApi',
        tags: ['operations'],
        response: { 308: Type.Null({ description: `Permanent redirect; Location: ${LINKS.openapi}` }) },
      },
    },
    async (_request, reply) => reply.redirect(LINKS.openapi, 308),
  );
}
