import type { Transaction } from 'kysely';
import type { Database, Dialect } from '../db/schema.ts';
import { newId } from '../core/resourceId.ts';
import { isIso4217 } from '../core/currencies.ts';
import { notFound, Problem, validationProblem } from '../core/problem.ts';
import type { CreateAccountInput, UpdateAccountInput } from './accountWriteSchemas.ts';
import { accountCountKeys, adjustCounts, statusChangeDeltas } from '../counts/listCounts.ts';
import { derivedAccountColumns, withAccountResource } from './accountResource.ts';
import { pickShard } from '../counts/counterShard.ts';

function conflict(title: string, detail: string): Problem {
  return new Problem({ status: 409, type: 'https://docs.payments.example/problems/conflict', title, detail });
}

export async function createAccount(trx: Transaction<Database>, dialect: Dialect, tenantId: string, input: CreateAccountInput) {
  if (!isIso4217(input.currency)) throw validationProblem({ currency: ['is not an ISO 4217 currency code'] });
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
  await adjustCounts(trx, tenantId, accountCountKeys(row.status).map((k) => ({ ...k, delta: 1 })), pickShard(dialect));
  return row;
}

/** Locks the account row (PostgreSQL) so a concurrent payment or close sees one state. */
export async function lockAccount(trx: Transaction<Database>, dialect: Dialect, tenantId: string, id: string) {
  let query = trx.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (dialect === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateAccount(trx: Transaction<Database>, dialect: Dialect, tenantId: string, id: string, input: UpdateAccountInput) {
  const current = await lockAccount(trx, dialect, tenantId, id);
  if (!current) throw notFound(`No account ${id}.`);
  if (current.status === 'closed') throw conflict('The account is closed', 'A closed account cannot be changed.');
  const fields = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.email !== undefined ? { email: input.email } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
    updated_at: new Date().toISOString(),
  };
  const derived = derivedAccountColumns({ ...current, ...fields });
  const updated = { ...current, ...fields, ...derived };
  await trx.updateTable('accounts').set({ ...fields, ...derived }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  if (input.status !== undefined) await adjustCounts(trx, tenantId, statusChangeDeltas(accountCountKeys, current.status, input.status), pickShard(dialect));
  return updated;
}

export async function deleteAccount(trx: Transaction<Database>, dialect: Dialect, tenantId: string, id: string) {
  const current = await lockAccount(trx, dialect, tenantId, id);
  if (!current) throw notFound(`No account ${id}.`);
  const payment = await trx.selectFrom('payments').select('id').where('tenant_id', '=', tenantId).where('account_id', '=', id).limit(1).executeTakeFirst();
  if (payment) throw conflict('The account has payments', 'An account with payments cannot be deleted; close it instead (PATCH status=closed).');
  await trx.deleteFrom('accounts').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  await adjustCounts(trx, tenantId, accountCountKeys(current.status).map((k) => ({ ...k, delta: -1 })), pickShard(dialect));
}

export { conflict };
