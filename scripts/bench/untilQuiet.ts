import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Dataset } from './datasets.ts';

/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every architecture it runs on). */
const TICKS_PER_SECOND = 100;
const WINDOW_MS = 200;
/** A server is quiet below this share of one core over a window. */
const QUIET_SHARE = 0.05;
const MAX_WAIT_MS = 60_000;

/** CPU seconds process `pid` has used so far (user + system); undefined once it is gone. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: the fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Statements other sessions are running on the database at `url` right now. */
async function activeStatements(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend'`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * Waits until the servers are done with what a run left in flight: autocannon stops at its
 * duration, but a server goes on with the requests it had (the floor's count over a million rows
 * takes seconds, sixteen at once), and that work would be charged to whichever run comes next —
 * in the floor's alternation, always ours. Quiet: every server process under 5 % of a core over
 * 200 ms and, on PostgreSQL, no other session running a statement on the dataset's database. At
 * most 60 s.
 */
export async function untilQuiet(pids: number[], ds: Pick<Dataset, 'dialect' | 'url'>): Promise<void> {
  const databaseUrl = ds.dialect === 'postgres' ? ds.url : undefined;
  const deadline = Date.now() + MAX_WAIT_MS;
  while (Date.now() < deadline) {
    const before = pids.map(cpuSecondsOf);
    await sleep(WINDOW_MS);
    const busy = pids.some((pid, i) => {
      const [a, b] = [before[i], cpuSecondsOf(pid)];
      return a !== undefined && b !== undefined && (b - a) / (WINDOW_MS / 1000) >= QUIET_SHARE;
    });
    if (!busy && (!databaseUrl || (await activeStatements(databaseUrl)) === 0)) return;
  }
}
