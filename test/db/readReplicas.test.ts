import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { ReadReplica, ReadRouting, type ReplicaStatus } from '../../src/db/readReplicas.ts';

/**
 * The routing's decisions, replica by replica. Each replica's answer to "how far are you" is set
 * by the test (a standby's replay cannot be steered from here; the system test drives a real
 * one): what is under test is which database a read is sent to, given those answers.
 */
class AnsweringReplica extends ReadReplica {
  answer: { status: ReplicaStatus; replayed: number; lagMs: number };
  asked = 0;
  constructor(name: string, answer: AnsweringReplica['answer']) {
    super(name, openDatabase('sqlite::memory:'), openDatabase('sqlite::memory:'));
    this.answer = answer;
  }
  override async ask(): Promise<void> {
    this.asked++;
    Object.assign(this, this.answer);
    this.askedAt = performance.now();
  }
}

const opened: Array<{ close(): Promise<void> }> = [];
function routing(replicas: AnsweringReplica[], maxLagMs = 1_000): { reads: ReadRouting; primary: Db } {
  const primary = openDatabase('sqlite::memory:');
  const reads = new ReadRouting(primary, replicas, maxLagMs);
  opened.push(reads, primary);
  return { reads, primary };
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
    const far = new AnsweringReplica('far:5432', { status: 'up', replayed: 100, lagMs: 0 });
    const near = new AnsweringReplica('near:5432', { status: 'up', replayed: 50, lagMs: 0 });
    const { reads } = routing([far, near]);
    await reads.start();
    expect(await targetsOf(reads, 80)).toEqual(['far:5432']);
    expect(await targetsOf(reads, 50)).toEqual(['far:5432', 'near:5432']);
    expect(await targetsOf(reads, 0)).toEqual(['far:5432', 'near:5432']);
  });

  it('to the primary when every replica is short of the tenant’s position, after asking them again', async () => {
    const replica = new AnsweringReplica('r:5432', { status: 'up', replayed: 100, lagMs: 0 });
    const { reads } = routing([replica]);
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
    const down = new AnsweringReplica('down:5432', { status: 'down', replayed: 1_000, lagMs: 0 });
    const promoted = new AnsweringReplica('promoted:5432', { status: 'not-a-standby', replayed: 1_000, lagMs: 0 });
    const lagging = new AnsweringReplica('lagging:5432', { status: 'up', replayed: 1_000, lagMs: 1_001 });
    const { reads } = routing([down, promoted, lagging], 1_000);
    await reads.start();
    expect(await reads.readerFor(0)).toMatchObject({ target: 'primary', reason: 'unusable' });
  });

  it('runs a read again on the primary when the replica went away under it, and counts where each read ran', async () => {
    const replica = new AnsweringReplica('r:5432', { status: 'up', replayed: 10, lagMs: 0 });
    const { reads, primary } = routing([replica]);
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
    const { reads } = routing([new AnsweringReplica('r:5432', { status: 'up', replayed: 10, lagMs: 0 })]);
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
