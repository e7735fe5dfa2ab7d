import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBulkInserter, SQLITE_LOAD_CACHE_KIB } from '../../src/seed/bulkInsert.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

describe.runIf(TEST_DIALECT === 'sqlite')('SQLite bulk inserter', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('loads with a large page cache and gives the connection its own back when it closes', async () => {
    const native = database.db.native;
    if (native.dialect !== 'sqlite') throw new Error('not SQLite');
    const cacheSize = () => (native.database.prepare('pragma cache_size').get() as { cache_size: number }).cache_size;
    const before = cacheSize();
    expect(before).not.toBe(-SQLITE_LOAD_CACHE_KIB);
    const inserter = await openBulkInserter(database.db);
    expect(cacheSize()).toBe(-SQLITE_LOAD_CACHE_KIB);
    await inserter.close();
    expect(cacheSize()).toBe(before);
  });
});
