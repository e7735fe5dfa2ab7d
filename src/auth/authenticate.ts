import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { forbidden, unauthorized } from '../http/problem.ts';
import { hashApiKey, type Scope } from './apiKey.ts';
import { findActiveKeyByHash } from './tenantQueries.ts';

export interface Caller {
  tenantId: string;
  scopes: Scope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; routes without one are public (health, readiness). */
    scope?: Scope;
  }
}

const BEARER = /^Bearer ([A-Za-z0-9_\-.~+/]{1,200}=*)$/;

async function callerOf(db: Kysely<Database>, request: FastifyRequest): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('Send an API key as Authorization: Bearer <key>.');
  const match = BEARER.exec(header);
  if (!match) throw unauthorized('The Authorization header must be Bearer <key>.');
  const key = await findActiveKeyByHash(db, hashApiKey(match[1]));
  if (!key) throw unauthorized('The API key is not valid.');
  return { tenantId: key.tenant_id, scopes: key.scopes.split(',') as Scope[] };
}

/** Authenticates every route that declares a scope, before its input is even validated. */
export function registerAuthentication(app: FastifyInstance, db: Kysely<Database>): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    const needed = request.routeOptions.config.scope;
    if (!needed) return;
    const caller = await callerOf(db, request);
    if (!caller.scopes.includes(needed)) throw forbidden(`This API key lacks the ${needed} scope.`);
    request.caller = caller;
  });
}
