import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { nodeSqliteDialect } from '../../src/db/nodeSqliteDialect.ts';

const raw = new DatabaseSync(':memory:');
const db = new Kysely<Record<string, never>>({ dialect: nodeSqliteDialect(raw) });
afterAll(() => db.destroy());

/** Whether a callback queued for the loop's next turn ran before `work` settled. */
async function loopTurnedDuring(work: () => Promise<unknown>): Promise<boolean> {
  let turned = false;
  setImmediate(() => (turned = true));
  await work();
  return turned;
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the node:sqlite driver', () => {
  it('does not hand the loop over before a short statement that starts after an idle spell', async () => {
    // The driver's clock is frozen and moved by hand, so a busy machine pausing this process
    // mid-statement cannot make the short statement look long; only the idle spell counts.
    vi.useFakeTimers({ toFake: ['performance'] });
    const frozen = new Kysely<Record<string, never>>({ dialect: nodeSqliteDialect(new DatabaseSync(':memory:')) });
    try {
      await sql`select 1`.execute(frozen);
      await idle(1);
      vi.advanceTimersByTime(20);
      expect(await loopTurnedDuring(() => sql`select 1`.execute(frozen))).toBe(false);
    } finally {
      await frozen.destroy();
      vi.useRealTimers();
    }
  });

  it('hands the loop over while reading a result too long to read in one stretch', async () => {
    const many = sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 300000) select i, printf('%0100d', i) as padding from n`;
    const { rows } = await many.execute(db);
    expect(rows).toHaveLength(300_000);
    expect(await loopTurnedDuring(() => many.execute(db))).toBe(true);
  });

  it('commits a write that begins in the loop turn after another one finished its work together with it: one commit', async () => {
    const tally = { commits: 0, transactions: 0 };
    // No age limit that a pause of the machine could reach: the turn's wait alone decides.
    const grouped = new Kysely<Record<string, never>>({ dialect: nodeSqliteDialect(new DatabaseSync(':memory:'), { tally, groupMaxMs: 60_000 }) });
    try {
      await sql`create table t (n integer)`.execute(grouped);
      const before = { ...tally };
      let second: Promise<unknown> | undefined;
      await grouped.transaction().execute(async (trx) => {
        await sql`insert into t values (1)`.execute(trx);
        // Another request's write, arriving while this one finishes: it begins in the loop's next turn.
        setImmediate(() => (second = grouped.transaction().execute((other) => sql`insert into t values (2)`.execute(other))));
      });
      await new Promise((resolve) => setImmediate(resolve));
      await second;
      expect({ commits: tally.commits - before.commits, transactions: tally.transactions - before.transactions }).toEqual({ commits: 1, transactions: 2 });
      expect((await sql<{ n: number }>`select count(*) as n from t`.execute(grouped)).rows[0].n).toBe(2);
    } finally {
      await grouped.destroy();
    }
  });
});
