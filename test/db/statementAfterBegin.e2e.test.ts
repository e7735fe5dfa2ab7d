import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagged } from '../../src/db/driverFlags.ts';
import { recordSentStatements } from '../support/sentStatements.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';

/**
 * PostgreSQL: a transaction's BEGIN goes with its first statement, in one round trip
 * (src/db/statementAfterBegin.ts), and the transaction is the same as with a BEGIN of its own.
 */
describe.runIf(TEST_DIALECT === 'postgres')("a transaction's BEGIN sent with its first statement", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await sql`create table begin_probe (id int primary key, note text)`.execute(database.db.kysely);
  });
  afterAll(async () => {
    await sql`drop table if exists begin_probe`.execute(database.db.kysely);
    await database?.drop();
  });

  const rows = async () => (await sql<{ id: number }>`select id from begin_probe order by id`.execute(database.db.kysely)).rows.map((r) => r.id);
  /** What `work` sends, as texts, and whether each went with a BEGIN. */
  const sent = async (work: () => Promise<unknown>) => {
    const recorder = recordSentStatements();
    try {
      await work().catch(() => {});
      return recorder.statements.map((s) => ({ text: s.text, afterBegin: s.afterBegin }));
    } finally {
      recorder.stop();
    }
  };

  it('sends the first statement with the BEGIN, the rest alone, and commits them as one transaction', async () => {
    const statements = await sent(() =>
      database.db.kysely.transaction().execute(async (trx) => {
        const xact = sql<{ id: string }>`select pg_current_xact_id()::text as id`;
        const first = (await xact.execute(trx)).rows[0]?.id;
        await sql`insert into begin_probe values (1, 'one')`.execute(trx);
        await sql`insert into begin_probe values (2, 'two')`.execute(trx);
        // One transaction from the first statement on.
        expect((await xact.execute(trx)).rows[0]?.id).toBe(first);
      }),
    );
    expect(statements.map((s) => s.afterBegin)).toEqual([true, false, false, false, false]);
    expect(statements.at(-1)?.text).toBe('commit');
    expect(await rows()).toEqual([1, 2]);
  });

  it('rolls back what its first statement wrote when a later one fails', async () => {
    await expect(
      database.db.kysely.transaction().execute(async (trx) => {
        await sql`insert into begin_probe values (3, 'three')`.execute(trx);
        await sql`insert into begin_probe values (1, 'taken')`.execute(trx);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await rows()).toEqual([1, 2]);
  });

  it('rolls back when its first statement itself fails, and the connection serves the next transaction', async () => {
    await expect(
      database.db.kysely.transaction().execute(async (trx) => {
        await sql`insert into begin_probe values (1, 'taken')`.execute(trx);
      }),
    ).rejects.toThrow(/duplicate key/);
    await database.db.kysely.transaction().execute(async (trx) => {
      await sql`insert into begin_probe values (4, 'four')`.execute(trx);
    });
    expect(await rows()).toEqual([1, 2, 4]);
  });

  it('sends nothing for a transaction that sends no statement, whether it commits or rolls back', async () => {
    expect(await sent(() => database.db.kysely.transaction().execute(async () => 'nothing'))).toEqual([]);
    expect(
      await sent(() =>
        database.db.kysely.transaction().execute(async () => {
          throw new Error('before any statement');
        }),
      ),
    ).toEqual([]);
  });

  it('prepares a named statement that fails with its BEGIN again on its next use, rather than taking it as prepared', async () => {
    // Fails at parse time: the name must not be taken as parsed (node-postgres would otherwise skip its Parse next time).
    const broken = flagged({ compile: () => CompiledQuery.raw('select no_such_column from begin_probe where id = $1', [1]) }, { prepared: true });
    for (let i = 0; i < 2; i++) {
      await expect(database.db.kysely.transaction().execute((trx) => trx.executeQuery(broken.compile()))).rejects.toThrow(/no_such_column/);
    }
    // A named statement that parses, used first with a BEGIN and then alone, answers both times.
    const fine = flagged({ compile: () => CompiledQuery.raw('select count(*)::int as n from begin_probe where id >= $1', [0]) }, { prepared: true });
    for (let i = 0; i < 3; i++) {
      const n = await database.db.kysely.transaction().execute(async (trx) => {
        const first = await trx.executeQuery<{ n: number }>(fine.compile());
        const again = await trx.executeQuery<{ n: number }>(fine.compile());
        return [first.rows[0]?.n, again.rows[0]?.n];
      });
      expect(n).toEqual([3, 3]);
    }
  });

  it('keeps a transaction-level setting its first statement made for the statements after it', async () => {
    const timeouts = await database.db.kysely.transaction().execute(async (trx) => {
      await sql`set local statement_timeout = '4321ms'`.execute(trx);
      return (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(trx)).rows[0]?.statement_timeout;
    });
    expect(timeouts).toBe('4321ms');
  });
});
