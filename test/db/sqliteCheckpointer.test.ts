import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeSqliteDialect, openSqlite } from '../../src/db/nodeSqliteDialect.ts';
import { WRITER_CHECKPOINT_PAGES } from '../../src/db/sqliteCheckpointer.ts';

const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkpoints on a thread of their own', () => {
  it('copies committed pages into the database file long before the writer would, and stops with the database', async () => {
    const path = join(dir, 'served.sqlite');
    const raw = openSqlite(path);
    raw.exec('create table items (id integer primary key, note text not null)');
    const db = new Kysely<{ items: { id: number; note: string } }>({ dialect: nodeSqliteDialect(raw) });
    expect((raw.prepare('pragma wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(WRITER_CHECKPOINT_PAGES);
    const sizeBefore = statSync(path).size;
    // About 200 pages: far below the writer's own checkpoint.
    for (let batch = 0; batch < 10; batch++) {
      await db
        .insertInto('items')
        .values(Array.from({ length: 100 }, (_, i) => ({ id: batch * 100 + i, note: 'x'.repeat(600) })))
        .execute();
    }
    const deadline = Date.now() + 5_000;
    while (statSync(path).size <= sizeBefore + 100 * 4096 && Date.now() < deadline) await sleep(20);
    expect(statSync(path).size).toBeGreaterThan(sizeBefore + 100 * 4096);
    await db.destroy();
  });

  it('is not started for a command that reads on its one connection (readers off): SQLite checkpoints as usual', async () => {
    const raw = openSqlite(join(dir, 'command.sqlite'));
    const db = new Kysely<Record<string, never>>({ dialect: nodeSqliteDialect(raw, { readers: false }) });
    expect((raw.prepare('pragma wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(1000);
    await db.destroy();
  });
});
