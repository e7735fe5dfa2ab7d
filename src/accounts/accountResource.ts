import type { Selectable } from 'kysely';
import type { AccountTable } from '../db/schema.ts';
import { readJsonObject } from '../db/jsonColumn.ts';
import { caseFold } from '../lists/index.ts';
import type { Account } from './accountSchema.ts';

/** Columns derived from an account's own fields, which every write stores with them. */
type DerivedColumn = 'resource' | 'name_folded' | 'email_folded';
export type AccountFields = Omit<Selectable<AccountTable>, DerivedColumn>;

export function toAccountResource(row: AccountFields): Account {
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

/** What a write stores beside the fields: the representation, and the texts the case-insensitive filters compare. */
export function derivedAccountColumns(row: AccountFields): Pick<AccountTable, DerivedColumn> {
  return { resource: JSON.stringify(toAccountResource(row)), name_folded: caseFold(row.name), email_folded: caseFold(row.email) };
}

/** An account row with its derived columns filled in: what every write saves. */
export function withAccountResource<T extends AccountFields>(row: T): T & Pick<AccountTable, DerivedColumn> {
  return { ...row, ...derivedAccountColumns(row) };
}
