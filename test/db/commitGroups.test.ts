import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSqliteDialect, openSqlite, type CommitTally } from '../../src/db/nodeSqliteDialect.ts';

interface Tables {
  items: { id: number; note: string };
}

const dir = mkdtempSync(join(tmpdir(), 'commit-groups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNumber = 0;
/** A SQLite file of its own, the driver on it (with its readers), and a second connection that sees only what is committed. */
function openFile() {
  const path = join(dir, `db-${++fileNumber}.sqlite`);
  const raw = openSqlite(path);
  raw.exec('create table items (id integer primary key, note text not null)');
  const tally: CommitTally = { commits: 0, transactions: 0 };
  const db = new Kysely<Tables>({ dialect: nodeSqliteDialect(raw, { tally }) });
  const outside = new DatabaseSync(path, { readOnly: true });
  const committedIds = () => new Set((outside.prepare('select id from items').all() as Array<{ id: number }>).map((r) => r.id));
  return {
    db,
    raw,
    tally,
    committedIds,
    close: async () => {
      outside.close();
      await db.destroy();
    },
  };
}

class Refused extends Error {}

/** Lets the loop turn `n` times, so transactions started together interleave differently. */
async function turns(n: number) {
  for (let i = 0; i < n; i++) await nextTurn();
}

describe('write transactions on SQLite, committed in groups', () => {
  let file: ReturnType<typeof openFile>;
  beforeAll(() => {
    file = openFile();
  });
  afterAll(() => file.close());

  it('commits transactions that waited for one another once, and answers each only when its rows are committed', async () => {
    const before = { ...file.tally };
    const ids = Array.from({ length: 10 }, (_, i) => 1000 + i);
    await Promise.all(
      ids.map((id) =>
        file.db
          .transaction()
          .execute((trx) => trx.insertInto('items').values({ id, note: 'together' }).execute())
          .then(() => expect(file.committedIds().has(id)).toBe(true)),
      ),
    );
    expect(file.tally.transactions - before.transactions).toBe(10);
    expect(file.tally.commits - before.commits).toBeLessThan(10);
  });

  it('rolls back a member that fails, and commits the others of its group', async () => {
    const outcomes = await Promise.allSettled(
      [2000, 2001, 2002].map((id) =>
        file.db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ id, note: 'member' }).execute();
          if (id === 2001) throw new Refused();
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const committed = file.committedIds();
    expect([committed.has(2000), committed.has(2001), committed.has(2002)]).toEqual([true, false, true]);
  });

  it('keeps a member whose statement failed and was caught, without the failed statement', async () => {
    await file.db.insertInto('items').values({ id: 3000, note: 'first' }).execute();
    await Promise.all([
      file.db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 3001, note: 'kept' }).execute();
        await expect(trx.insertInto('items').values({ id: 3000, note: 'again' }).execute()).rejects.toThrow(/UNIQUE/);
      }),
      file.db.transaction().execute((trx) => trx.insertInto('items').values({ id: 3002, note: 'beside' }).execute()),
    ]);
    const notes = await file.db.selectFrom('items').select(['id', 'note']).where('id', 'in', [3000, 3001, 3002]).orderBy('id').execute();
    expect(notes).toEqual([
      { id: 3000, note: 'first' },
      { id: 3001, note: 'kept' },
      { id: 3002, note: 'beside' },
    ]);
  });

  it('answers every member of a group with an error when SQLite rolls the whole transaction back', async () => {
    const outcomes = await Promise.allSettled(
      [4000, 4001, 4002].map((id) =>
        file.db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ id, note: 'lost' }).execute();
          // What SQLite does on a full disk or an I/O error: the transaction, every savepoint in it, is gone.
          if (id === 4001) await sql`rollback`.execute(trx);
        }),
      ),
    );
    expect(outcomes.slice(0, 2).map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(file.committedIds().has(4000) || file.committedIds().has(4001)).toBe(false);
    // The third began after the loss, in a transaction of its own.
    expect(outcomes[2].status).toBe('fulfilled');
    expect(file.committedIds().has(4002)).toBe(true);
    await file.db.insertInto('items').values({ id: 4003, note: 'after' }).execute();
    expect(file.committedIds().has(4003)).toBe(true);
  });

  it('commits the group before a statement outside it runs, so the statement reads only committed rows', async () => {
    let seen: number | undefined;
    await Promise.all([
      file.db.transaction().execute((trx) => trx.insertInto('items').values({ id: 5000, note: 'grouped' }).execute()),
      file.db.transaction().execute((trx) => trx.insertInto('items').values({ id: 5001, note: 'grouped' }).execute()),
      (async () => {
        // A write outside any transaction, queued behind the two.
        await file.db.insertInto('items').values({ id: 5002, note: 'lone' }).execute();
        seen = file.committedIds().has(5000) && file.committedIds().has(5001) ? 2 : 0;
      })(),
    ]);
    expect(seen).toBe(2);
  });

  it('agrees with a model under any interleaving of writes, refusals, lone writes and reads', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), pause: fc.nat(3), refuse: fc.boolean(), readsOwn: fc.boolean() }),
      fc.record({ kind: fc.constant('lone' as const), pause: fc.nat(3) }),
      fc.record({ kind: fc.constant('read' as const), pause: fc.nat(3) }),
    );
    let nextId = 100_000;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }), async (waves) => {
        const committed = new Set<number>();
        const refused = new Set<number>();
        for (const wave of waves) {
          await Promise.all(
            wave.map(async (s) => {
              await turns(s.pause);
              if (s.kind === 'read') {
                const answeredBefore = new Set(committed);
                const rows = await file.db.selectFrom('items').select('id').where('id', '>=', 100_000).execute();
                const read = new Set(rows.map((r) => r.id));
                for (const id of answeredBefore) expect(read.has(id)).toBe(true);
                for (const id of refused) expect(read.has(id)).toBe(false);
                return;
              }
              const id = nextId++;
              if (s.kind === 'lone') {
                await file.db.insertInto('items').values({ id, note: 'lone' }).execute();
              } else {
                try {
                  await file.db.transaction().execute(async (trx) => {
                    await trx.insertInto('items').values({ id, note: 'write' }).execute();
                    await turns(s.pause);
                    if (s.readsOwn) expect(await trx.selectFrom('items').select('id').where('id', '=', id).execute()).toEqual([{ id }]);
                    if (s.refuse) throw new Refused();
                  });
                } catch (error) {
                  if (!(error instanceof Refused)) throw error;
                  refused.add(id);
                  expect(file.committedIds().has(id)).toBe(false);
                  return;
                }
              }
              // Answered: committed, and seen so by another connection.
              expect(file.committedIds().has(id)).toBe(true);
              committed.add(id);
            }),
          );
        }
        const all = file.committedIds();
        for (const id of committed) expect(all.has(id)).toBe(true);
        for (const id of refused) expect(all.has(id)).toBe(false);
      }),
      { numRuns: 40 },
    );
  });
});
