import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBulkInserter, SQLITE_LOAD_CACHE_KIB, SQLITE_LOAD_THREADS } from '../../src/seed/bulkInsert.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

describe.runIf(TEST_DIALECT === 'sqlite')('SQLite bulk inserter', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('loads with a large page cache and sorting threads, and gives the connection its own back when it closes', async () => {
    const native = database.db.native;
    if (native.dialect !== 'sqlite') throw new Error('not SQLite');
    const cacheSize = () => (native.database.prepare('pragma cache_size').get() as { cache_size: number }).cache_size;
    const threads = () => (native.database.prepare('pragma threads').get() as { threads: number }).threads;
    const before = { cache: cacheSize(), threads: threads() };
    expect(before).not.toEqual({ cache: -SQLITE_LOAD_CACHE_KIB, threads: SQLITE_LOAD_THREADS });
    const inserter = await openBulkInserter(database.db);
    expect({ cache: cacheSize(), threads: threads() }).toEqual({ cache: -SQLITE_LOAD_CACHE_KIB, threads: SQLITE_LOAD_THREADS });
    await inserter.close();
    expect({ cache: cacheSize(), threads: threads() }).toEqual(before);
  });
});
