import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { PrimaryPositions } from '../../src/db/primaryPositions.ts';
import { ReadReplica, ReadRouting, type ReplicaStatus } from '../../src/db/readReplicas.ts';

/**
 * The routing's decisions, replica by replica. Each replica's answer to "how far are you" is set
 * by the test, and so are the primary's positions over time (a standby's replay cannot be steered
 * from here; the system tests drive real ones): what is under test is which database a read is
 * sent to, given those answers.
 */
class AnsweringReplica extends ReadReplica {
  answer: { status: ReplicaStatus; replayed: number };
  asked = 0;
  constructor(name: string, answer: AnsweringReplica['answer'], positions: PrimaryPositions) {
    super(name, openDatabase('sqlite::memory:'), openDatabase('sqlite::memory:'), positions);
    this.answer = answer;
  }
  override async ask(): Promise<void> {
    this.asked++;
    Object.assign(this, this.answer);
    this.askedAt = performance.now();
  }
}

const opened: Array<{ close(): Promise<void> }> = [];
/**
 * Replicas answering as given, over a primary seen at these positions (`[ms ago, position]`;
 * by default at position 0 just now: every replica then has all the primary had).
 */
function routing(answers: Record<string, AnsweringReplica['answer']>, { maxLagMs = 1_000, seen = [[0, 0]] as Array<[number, number]> } = {}) {
  const positions = new PrimaryPositions();
  for (const [ago, position] of seen) positions.record(performance.now() - ago, position);
  const replicas = Object.entries(answers).map(([name, answer]) => new AnsweringReplica(name, answer, positions));
  const primary = openDatabase('sqlite::memory:');
  const reads = new ReadRouting(primary, replicas, maxLagMs, positions);
  opened.push(reads, primary);
  return { reads, primary, positions, replicas: replicas as [AnsweringReplica, ...AnsweringReplica[]] };
}
afterAll(async () => {
  for (const o of opened) await o.close();
});

const targetsOf = async (reads: ReadRouting, writtenUpTo: number, n = 6) => {
  const targets = new Set<string>();
  for (let i = 0; i < n; i++) targets.add((await reads.readerFor(writtenUpTo)).target);
  return [...targets].sort();
};

describe('where a tenant read goes', () => {
  it('to a replica that has replayed the tenant’s last write, never to another that has not (each replica judged on its own)', async () => {
    const { reads } = routing({ 'far:5432': { status: 'up', replayed: 100 }, 'near:5432': { status: 'up', replayed: 50 } });
    await reads.start();
    expect(await targetsOf(reads, 80)).toEqual(['far:5432']);
    expect(await targetsOf(reads, 50)).toEqual(['far:5432', 'near:5432']);
    expect(await targetsOf(reads, 0)).toEqual(['far:5432', 'near:5432']);
  });

  it('to the primary when every replica is short of the tenant’s position, after asking them again', async () => {
    const {
      reads,
      replicas: [replica],
    } = routing({ 'r:5432': { status: 'up', replayed: 100 } });
    await reads.start();
    await new Promise((resume) => setTimeout(resume, 5));
    const before = replica.asked;
    expect(await reads.readerFor(101)).toMatchObject({ target: 'primary', reason: 'behind-tenant' });
    expect(replica.asked).toBe(before + 1);
    // It has replayed further meanwhile: asked again, it answers the read.
    replica.answer = { ...replica.answer, replayed: 150 };
    await new Promise((resume) => setTimeout(resume, 5));
    expect(await reads.readerFor(120)).toMatchObject({ target: 'r:5432', reason: 'caught-up' });
  });

  it('to the primary when the replicas are down, promoted or lagging past the bound, whatever they replayed', async () => {
    const { reads } = routing(
      {
        'down:5432': { status: 'down', replayed: 2_000 },
        'promoted:5432': { status: 'not-a-standby', replayed: 2_000 },
        'lagging:5432': { status: 'up', replayed: 1_000 },
      },
      // The primary was at 1,000 1.1 s ago, and past it since.
      {
        maxLagMs: 1_000,
        seen: [
          [1_100, 1_000],
          [600, 1_500],
          [0, 2_000],
        ],
      },
    );
    await reads.start();
    expect(await reads.readerFor(0)).toMatchObject({ target: 'primary', reason: 'unusable' });
  });

  it('runs a read again on the primary when the replica went away under it, and counts where each read ran', async () => {
    const {
      reads,
      primary,
      replicas: [replica],
    } = routing({ 'r:5432': { status: 'up', replayed: 10 } });
    await reads.start();
    const ran: string[] = [];
    const answer = await reads.read(5, async (db) => {
      ran.push(db === primary ? 'primary' : 'replica');
      if (db !== primary) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return 'rows';
    });
    expect(answer).toBe('rows');
    expect(ran).toEqual(['replica', 'primary']);
    expect(replica.status).toBe('down');
    await reads.read(5, async () => 'rows');
    expect(reads.readCounts()).toEqual([
      { target: 'primary', reason: 'replica-failed', n: 1 },
      { target: 'primary', reason: 'unusable', n: 1 },
    ]);
  });

  it('does not run a read again for an error of the read itself', async () => {
    const { reads } = routing({ 'r:5432': { status: 'up', replayed: 10 } });
    await reads.start();
    let runs = 0;
    await expect(
      reads.read(0, async () => {
        runs++;
        throw Object.assign(new Error('syntax error'), { code: '42601' });
      }),
    ).rejects.toThrow('syntax error');
    expect(runs).toBe(1);
  });
});

describe('how old a replica’s data may be', () => {
  it('is the time since the primary was last seen at a position it has replayed: a replica receiving nothing more grows older as the primary moves on', async () => {
    const {
      reads,
      positions,
      replicas: [replica],
    } = routing({ 'r:5432': { status: 'up', replayed: 500 } }, { maxLagMs: 1_000, seen: [[300, 500]] });
    await reads.start();
    // It has all the primary had 300 ms ago, and the primary has been seen nowhere since.
    expect(replica.lagMs).toBeGreaterThanOrEqual(300);
    expect(replica.lagMs).toBeLessThan(1_000);
    expect(await reads.readerFor(0)).toMatchObject({ target: 'r:5432' });
    // The primary moves on; the replica stays at 500 (cut off: it has replayed all it received).
    positions.record(performance.now() - 200, 800);
    positions.record(performance.now(), 900);
    await new Promise((resume) => setTimeout(resume, 750));
    expect(replica.lagMs).toBeGreaterThan(1_000);
    expect(reads.views()[0]).toMatchObject({ name: 'r:5432', status: 'up', replayed: 500 });
    expect(reads.views()[0]!.lagMs).toBeGreaterThan(1_000);
    expect(await reads.readerFor(0)).toMatchObject({ target: 'primary', reason: 'unusable' });
    // It receives again and replays past the primary's last sample: current as of that sample.
    replica.answer = { status: 'up', replayed: 950 };
    await replica.ask();
    expect(replica.lagMs).toBeLessThan(800);
    expect(await reads.readerFor(0)).toMatchObject({ target: 'r:5432' });
  });

  it('is unknown (Infinity) until a sample of the primary proves anything, and the replica is not read from', async () => {
    const {
      reads,
      replicas: [replica],
    } = routing({ 'r:5432': { status: 'up', replayed: 100 } }, { seen: [[0, 200]] });
    await reads.start();
    expect(replica.lagMs).toBe(Number.POSITIVE_INFINITY);
    expect(await reads.readerFor(0)).toMatchObject({ target: 'primary', reason: 'unusable' });
  });
});
