import type { Write } from '../db/writeTransaction.ts';
import { newId } from '../core/resourceId.ts';
import { notFound, validationProblem } from '../core/problem.ts';
import { newSigningSecret, withEndpointResource } from './endpointResource.ts';
import type { CreateEndpointInput, UpdateEndpointInput } from './endpointSchemas.ts';
import { resolvedTargetProblem, urlProblem, type ResolveHost } from './targetSafety.ts';

/** How long the old secret keeps signing after a rotation: receivers have a day to switch. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Refuses a URL a webhook may not go to: its form, then the addresses its name resolves to now.
 * Called before the write's transaction: a DNS lookup never holds a database connection.
 */
export async function checkTargetUrl(url: string, allowPrivate: boolean, resolveHost: ResolveHost): Promise<void> {
  const problem = urlProblem(url, allowPrivate) ?? (await resolvedTargetProblem(url, allowPrivate, resolveHost));
  if (problem) throw validationProblem({ url: [{ code: 'unsafe_webhook_url', message: problem }] });
}

/** A new endpoint; its URL has passed checkTargetUrl. */
export async function createEndpoint({ trx }: Write, tenantId: string, input: CreateEndpointInput) {
  const now = new Date().toISOString();
  const row = withEndpointResource({
    id: newId('whe'),
    tenant_id: tenantId,
    url: input.url,
    enabled_events: JSON.stringify(input.enabled_events),
    enabled: input.enabled === false ? 0 : 1,
    secret: newSigningSecret(),
    previous_secret: null,
    previous_secret_until: null,
    consecutive_failures: 0,
    disabled_reason: null,
    created_at: now,
    updated_at: now,
  });
  await trx.insertInto('webhook_endpoints').values(row).execute();
  await countEndpoints({ trx }, tenantId, 1);
  return row;
}

/** Keeps the tenant's count of endpoints, by which the sender finds the tenants it serves (deliveryQueue.ts). */
function countEndpoints({ trx }: Pick<Write, 'trx'>, tenantId: string, delta: 1 | -1) {
  return trx
    .updateTable('tenants')
    .set((eb) => ({ webhook_endpoints: eb('webhook_endpoints', '+', delta) }))
    .where('id', '=', tenantId)
    .execute();
}

async function lockEndpoint({ trx }: Write, tenantId: string, id: string) {
  const row = await trx.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirst();
  if (!row) throw notFound(`No webhook endpoint ${id}.`);
  return row;
}

/** Changes an endpoint; a new URL has passed checkTargetUrl. */
export async function updateEndpoint(write: Write, tenantId: string, id: string, input: UpdateEndpointInput) {
  const current = await lockEndpoint(write, tenantId, id);
  const enabling = input.enabled === true;
  const row = withEndpointResource({
    ...current,
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.enabled_events !== undefined ? { enabled_events: JSON.stringify(input.enabled_events) } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled ? 1 : 0 } : {}),
    // Enabling again (by you) clears the sender's reason and its count of failures.
    ...(enabling ? { disabled_reason: null, consecutive_failures: 0 } : {}),
    updated_at: new Date().toISOString(),
  });
  const { id: _id, tenant_id: _tenant, ...changes } = row;
  await write.trx.updateTable('webhook_endpoints').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  return row;
}

/** A new secret; the old one keeps signing too for ROTATION_OVERLAP_MS. */
export async function rotateSecret(write: Write, tenantId: string, id: string, now = Date.now()) {
  const current = await lockEndpoint(write, tenantId, id);
  const row = withEndpointResource({
    ...current,
    secret: newSigningSecret(),
    previous_secret: current.secret,
    previous_secret_until: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
    updated_at: new Date(now).toISOString(),
  });
  await write.trx
    .updateTable('webhook_endpoints')
    .set({
      secret: row.secret,
      previous_secret: row.previous_secret,
      previous_secret_until: row.previous_secret_until,
      updated_at: row.updated_at,
      resource: row.resource,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
  return row;
}

export async function deleteEndpoint(write: Write, tenantId: string, id: string) {
  await lockEndpoint(write, tenantId, id);
  // The tenant in every statement, though the lock already proved the endpoint is its: one shard's work (docs/scaling.md).
  await write.trx.deleteFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('endpoint_id', '=', id).execute();
  await write.trx.deleteFrom('webhook_endpoints').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  await countEndpoints(write, tenantId, -1);
}
