import { expect } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { foldTenant, measureFoldLag } from '../../src/lists/counters/foldChanges.ts';

/** Folds every tenant's list changes into the counts now (tests that read the counter tables themselves). */
export async function foldAll(db: Db): Promise<number> {
  let folded = 0;
  for (const { id } of await db.kysely.selectFrom('tenants').select('id').execute()) folded += await foldTenant(db, id);
  return folded;
}

/**
 * Waits until the app's own fold (countFolder.ts) has folded every change: tests that count the
 * statements a request sends would otherwise count a fold of an earlier write's changes too.
 */
export async function untilFolded(db: Db): Promise<void> {
  await expect.poll(async () => (await measureFoldLag(db)).changes, { timeout: 10_000 }).toBe(0);
}
