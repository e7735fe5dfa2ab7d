import type { Write } from '../db/writeTransaction.ts';
import { newId } from '../core/resourceId.ts';
import { notFound, Problem } from '../core/problem.ts';
import type { CreateAccountInput, UpdateAccountInput } from './accountWriteSchemas.ts';
import { recordListWrite } from '../lists/index.ts';
import { derivedAccountColumns, withAccountResource } from './accountResource.ts';
import { recordEvent } from '../events/outbox.ts';

/** The account's state forbids the change; `detail` says which state. */
function conflict(detail: string): Problem {
  return new Problem('conflict', { detail });
}

export async function createAccount(write: Write, tenantId: string, input: CreateAccountInput) {
  const { trx } = write;
  // The currency is known to be ISO 4217 here: the route refused it otherwise (accountBodyChecks.ts).
  const now = new Date().toISOString();
  const row = withAccountResource({
    id: newId('acc'),
    tenant_id: tenantId,
    name: input.name,
    email: input.email,
    currency: input.currency,
    status: input.status ?? 'active',
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  });
  await trx.insertInto('accounts').values(row).execute();
  const change = { list: 'accounts' as const, recordId: row.id, currency: row.currency, after: row, events: ['account.created'] };
  // What the lists keep is held to go with the event's statement (decision 0092).
  await recordListWrite(write, tenantId, change, { set: input.metadata ?? {}, record: row });
  await recordEvent(write, tenantId, 'account.created', row.id, row.resource);
  return row;
}

/** Locks the account row so a concurrent payment or close sees one state. */
export async function lockAccount({ trx }: Write, tenantId: string, id: string) {
  return trx.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * Reads the account and keeps it as read until the transaction ends: a change to it (which
 * locks it with lockAccount, FOR UPDATE) waits for this transaction, and this one waits for a
 * change in flight. Payments on one account share the lock, so they do not wait for each other.
 */
export async function shareAccount({ trx }: Write, tenantId: string, id: string) {
  return trx.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forShare().executeTakeFirst();
}

export async function updateAccount(write: Write, tenantId: string, id: string, input: UpdateAccountInput) {
  const { trx } = write;
  const current = await lockAccount(write, tenantId, id);
  if (!current) throw notFound(`No account ${id}.`);
  if (current.status === 'closed') throw conflict('A closed account cannot be changed.');
  const fields = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.email !== undefined ? { email: input.email } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
    updated_at: new Date().toISOString(),
  };
  const derived = derivedAccountColumns({ ...current, ...fields });
  const updated = { ...current, ...fields, ...derived };
  await trx
    .updateTable('accounts')
    .set({ ...fields, ...derived })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
  const event = updated.status === 'closed' ? 'account.closed' : 'account.updated';
  const change = { list: 'accounts' as const, recordId: id, currency: current.currency, before: current, after: updated, events: [event] };
  const entries = input.metadata === undefined ? undefined : { set: input.metadata, record: updated, statusBefore: current.status };
  await recordListWrite(write, tenantId, change, entries);
  await recordEvent(write, tenantId, event, id, updated.resource);
  return updated;
}

export async function deleteAccount(write: Write, tenantId: string, id: string) {
  const { trx } = write;
  const current = await lockAccount(write, tenantId, id);
  if (!current) throw notFound(`No account ${id}.`);
  const payment = await trx.selectFrom('payments').select('id').where('tenant_id', '=', tenantId).where('account_id', '=', id).limit(1).executeTakeFirst();
  if (payment) throw conflict('An account with payments cannot be deleted; close it instead (PATCH status=closed).');
  await trx.deleteFrom('accounts').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  const change = { list: 'accounts' as const, recordId: id, currency: current.currency, before: current, events: ['account.deleted'] };
  await recordListWrite(write, tenantId, change, { remove: current });
  await recordEvent(write, tenantId, 'account.deleted', id, current.resource);
}

export { conflict };
