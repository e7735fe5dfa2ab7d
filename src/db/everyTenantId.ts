import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Tenants read per statement. */
const PAGE = 500;

/**
 * Every tenant's id, in id order, a page at a time: for the work no request does (the purges),
 * done tenant by tenant so that each of its statements names one tenant (on Citus, one shard;
 * `tenants` itself is a reference table that every node holds whole).
 */
export async function* everyTenantId(db: Kysely<Database>): AsyncGenerator<string> {
  for (let after = ''; ; ) {
    const page = await db.selectFrom('tenants').select('id').where('id', '>', after).orderBy('id').limit(PAGE).execute();
    for (const { id } of page) yield id;
    if (page.length < PAGE) return;
    after = page.at(-1)!.id;
  }
}
