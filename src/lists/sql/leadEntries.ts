import { sql, type RawBuilder } from 'kysely';
import type { Condition } from '../request/parseListQuery.ts';

type SearchedKey = Pick<Extract<Condition, { match: 'metadata' }>, 'key' | 'values'>;

const anyOf = (column: RawBuilder<unknown>, values: readonly string[]) =>
  values.length === 1 ? sql`${column} = ${values[0]}` : sql`${column} in (${sql.join(values)})`;

/**
 * The lead key's entries whose record holds every other searched key too, each probed by one index-only descent
 * of `…_value_record` (OFFSET 0 keeps PostgreSQL from making the EXISTS a join): a record has one value per key,
 * so these are the matching records, each once, none read (decision 0027). `more`: further tests of each entry
 * (its status); `leadValues`: those of the lead's values (one run of a merge: entryOrderPage.ts).
 */
export function leadEntriesWhere(
  entryTable: string,
  tenantId: string,
  keys: SearchedKey[],
  lead: number,
  more: RawBuilder<unknown> = sql``,
  leadValues = keys[lead].values,
) {
  const e = (column: string) => sql.ref(`${entryTable}.${column}`);
  const probes = keys
    .filter((_, i) => i !== lead)
    .map(
      (c) =>
        sql` and exists (select 1 from ${sql.table(entryTable)} as o where o.tenant_id = ${tenantId} and o.key = ${c.key} and ${anyOf(
          sql.ref('o.value'),
          c.values,
        )} and o.record_id = ${e('record_id')} limit 1 offset 0)`,
    );
  return sql`${e('tenant_id')} = ${tenantId} and ${e('key')} = ${keys[lead].key} and ${anyOf(e('value'), leadValues)}${sql.join(probes, sql``)}${more}`;
}

/** How many records match a search of metadata keys (leadEntriesWhere, `more` tests too), counted along the lead's entries. */
export function leadEntriesCount(entryTable: string, tenantId: string, keys: SearchedKey[], lead: number, more?: RawBuilder<unknown>) {
  return sql<number>`(select count(*) from ${sql.table(entryTable)} where ${leadEntriesWhere(entryTable, tenantId, keys, lead, more)})`;
}
