import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { ClientGone, connectionGone } from '../core/clientAborts.ts';
import { Problem } from '../core/problem.ts';

export interface RateLimitOptions {
  /** Requests per window per API key; 0 turns this limit off. */
  perKey: number;
  /** Requests per window per client address, before authentication; 0 turns this limit off. */
  perIp: number;
  windowMs: number;
  /** Shared counters for several instances; in-process when absent. */
  redis?: Redis;
  /** Redis key prefix (tests use a random one). */
  redisPrefix?: string;
}

/** Liveness and readiness must answer a prober however busy the clients are. */
const EXEMPT_ROUTES = new Set(['/health', '/ready']);

type Check = ReturnType<FastifyInstance['createRateLimit']>;
type Outcome = Awaited<ReturnType<Check>>;

function tooManyRequests(who: string, outcome: Outcome & { isAllowed: false }, windowMs: number): Problem {
  const retry = String(Math.max(1, outcome.ttlInSeconds));
  return new Problem('rate-limited', {
    detail: `${who} made more than ${outcome.max} requests in ${windowMs / 1000} s; retry in ${retry} s.`,
    headers: { 'retry-after': retry, 'ratelimit-limit': String(outcome.max), 'ratelimit-remaining': '0', 'ratelimit-reset': retry },
  });
}

/**
 * Two budgets, counted by @fastify/rate-limit in memory or in Redis: per client address before
 * authentication, so a flood of bad keys costs no key lookups; per API key (by its SHA-256) after,
 * so one busy caller cannot starve the others. Returns the two onRequest hooks for buildApp to place
 * around authentication.
 */
export async function rateLimits(app: FastifyInstance, options: RateLimitOptions) {
  const none = async () => {};
  if (options.perKey <= 0 && options.perIp <= 0) return { perAddress: none, perKey: none };
  await app.register(rateLimit, {
    global: false,
    timeWindow: options.windowMs,
    // Redis being away must not take the API down with it: requests pass uncounted meanwhile.
    skipOnError: true,
    ...(options.redis ? { redis: options.redis, nameSpace: options.redisPrefix ?? 'rl:' } : {}),
  });
  const byAddress = options.perIp > 0 ? app.createRateLimit({ max: options.perIp, keyGenerator: (r) => `ip:${normalizeIP(r.ip)}` }) : undefined;
  const byKey = options.perKey > 0 ? app.createRateLimit({ max: options.perKey, keyGenerator: (r) => `key:${r.caller.keyHash}` }) : undefined;

  return {
    async perAddress(request: FastifyRequest) {
      if (!byAddress || EXEMPT_ROUTES.has(request.routeOptions.url ?? '')) return;
      // Reset right after sending: there is no address left to count (request.ip is undefined).
      if (connectionGone(request.raw)) throw new ClientGone();
      const outcome = await byAddress(request);
      if (!outcome.isAllowed && outcome.isExceeded) throw tooManyRequests('This client address', outcome, options.windowMs);
    },
    async perKey(request: FastifyRequest, reply: FastifyReply) {
      if (!byKey || !request.caller) return;
      const outcome = await byKey(request);
      if (outcome.isAllowed) return;
      if (outcome.isExceeded) throw tooManyRequests('This API key', outcome, options.windowMs);
      // The IETF RateLimit fields, so a well-behaved client can pace itself before a 429.
      reply.header('ratelimit-limit', outcome.max);
      reply.header('ratelimit-remaining', outcome.remaining);
      reply.header('ratelimit-reset', Math.max(0, outcome.ttlInSeconds));
    },
  };
}
