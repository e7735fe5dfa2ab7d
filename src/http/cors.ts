import type { FastifyInstance } from 'fastify';
import cors from '@fastify/cors';

/** What a browser page on an allowed origin may read from our responses. */
const EXPOSED = [
  'Link',
  'ETag',
  'Location',
  'X-Request-Id',
  'Retry-After',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'Server-Timing',
  'RateLimit',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

/** CORS for the listed origins (`*` for any); nothing at all when the list is empty. */
export async function registerCors(app: FastifyInstance, origins: string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
}
