import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Expansion, RepresentationOffer, ResourceType } from '../representations/representationQuery.ts';
import { AccountSchema } from './accountSchema.ts';

/** Accounts in `fields[accounts]`: every field of the resource, in its order. */
export const ACCOUNT_TYPE: ResourceType = { type: 'accounts', fields: Object.keys(AccountSchema.properties), schema: AccountSchema };

/** What account reads offer: sparse fieldsets; nothing of an account expands. */
export const accountRepresentation: RepresentationOffer = { own: ACCOUNT_TYPE, expansions: [] };

/** Ids per statement: well under both databases' bound-parameter limits. */
const IDS_PER_QUERY = 1000;

/** The stored representations of some accounts of a tenant, by primary key (test/lists/queryPlans.e2e.test.ts checks its plan). */
export function accountResourcesSelect(db: Kysely<Database>, tenantId: string, ids: readonly string[]) {
  return db.selectFrom('accounts').select(['id', 'resource']).where('tenant_id', '=', tenantId).where('id', 'in', ids);
}

/** `expand[]=account` on anything holding an `account_id`: the accounts as GET /v3/accounts/{id} renders them, by primary key. */
export function accountExpansion(db: Kysely<Database>): Expansion {
  return {
    name: 'account',
    idField: 'account_id',
    embeds: ACCOUNT_TYPE,
    async load(tenantId, ids) {
      const found = new Map<string, string>();
      for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
        const rows = await accountResourcesSelect(db, tenantId, ids.slice(i, i + IDS_PER_QUERY)).execute();
        for (const row of rows) found.set(row.id, row.resource);
      }
      return found;
    },
  };
}
