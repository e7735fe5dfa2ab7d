import type { Selectable } from 'kysely';
import type { AccountTable } from '../db/schema.ts';
import { readJsonObject } from '../db/jsonColumn.ts';
import type { Account } from './accountSchema.ts';

export function toAccountResource(row: Omit<Selectable<AccountTable>, 'resource'>): Account {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    currency: row.currency,
    status: row.status as Account['status'],
    metadata: readJsonObject(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An account row with its stored representation filled in: what every write saves. */
export function withAccountResource<T extends Omit<Selectable<AccountTable>, 'resource'>>(row: T): T & { resource: string } {
  return { ...row, resource: JSON.stringify(toAccountResource(row)) };
}
