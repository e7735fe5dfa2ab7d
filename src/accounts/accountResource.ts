import type { Selectable } from 'kysely';
import type { AccountTable } from '../db/schema.ts';
import { readJsonObject } from '../db/jsonColumn.ts';
import type { Account } from './accountSchema.ts';

export function toAccountResource(row: Selectable<AccountTable>): Account {
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
