import type { FastifyRequest } from 'fastify';

/**
 * The origin page links are built on: the configured public URL, else the request's own
 * scheme and host (Fastify honours X-Forwarded-* only when trustProxy is configured).
 */
export function requestOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  return `${request.protocol}://${request.host}`;
}
