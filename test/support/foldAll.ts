import type { Db } from '../../src/db/database.ts';
import { foldTenant } from '../../src/lists/counters/foldChanges.ts';

/** Folds every tenant's list changes into the counts now (tests that read the counter tables themselves). */
export async function foldAll(db: Db): Promise<number> {
  let folded = 0;
  for (const { id } of await db.kysely.selectFrom('tenants').select('id').execute()) folded += await foldTenant(db, id);
  return folded;
}
