import { resolve } from 'node:path';
import { datasetOfBuild, type Dataset } from './datasets.ts';
import { startFloor } from './floor/againstFloor.ts';
import { startServer, type RunningServer } from './server.ts';
import { getJson, hammer, type Measured } from './scenarios.ts';
import { median } from './median.ts';
import { untilQuiet } from './untilQuiet.ts';

/** The list cases the full run measures against the floor (main.ts), by name. */
export async function floorCasePaths(origin: string, key: string): Promise<Record<string, string>> {
  const first = await getJson(`${origin}/v3/payments?per_page=10`, key);
  const deep = Math.max(2, Math.floor(first.meta.last_page * 0.9));
  const account = (await getJson(`${origin}/v3/accounts?per_page=1`, key)).data[0].id as string;
  return {
    'page 1': '/v3/payments',
    'per_page=5000': '/v3/payments?per_page=5000',
    'page at 90% depth': `/v3/payments?page=${deep}`,
    'filter[status]=succeeded': '/v3/payments?filter[status]=succeeded',
    'filter[status]=failed&sort=-amount': '/v3/payments?filter[status]=failed&sort=-amount',
    'one account’s payments': `/v3/accounts/${account}/payments`,
    'filter[metadata][channel]=web': '/v3/payments?filter[metadata][channel]=web',
    accounts: '/v3/accounts',
  };
}

/** Each case's runs, in rounds: ours, another build of the service (`before`) when given, the floor. */
export interface FloorRounds {
  cases: Array<{ name: string; ours: Measured[]; before: Measured[]; floor: Measured[] }>;
}

/**
 * `--only floor`: the list cases on the service and on the floor, alternated case by case for
 * `rounds` rounds, without the rest of a dataset's run. With `beforeDir` (a checkout of another
 * commit, its node_modules in place), that build's server runs beside ours on the same payments,
 * seeded by that build into a dataset of its own (datasetOfBuild), and is measured in the same
 * alternation: before ÷ after in one run on a noisy machine.
 */
export async function measureFloorRounds(
  ds: Dataset,
  options: { seconds: number; connections: number; rounds: number; beforeDir?: string; log: (line: string) => void },
): Promise<FloorRounds> {
  const servers: RunningServer[] = [];
  try {
    const ours = await startServer(ds.url);
    servers.push(ours);
    // The other build serves the same payments (the same seed) from a dataset it built itself: its layout may differ from ours.
    const other = options.beforeDir ? await datasetOfBuild(options.beforeDir, ds.dialect, ds.payments, options.log) : undefined;
    const before =
      other && options.beforeDir
        ? { ...other, server: await startServer(other.url, { command: [resolve(options.beforeDir, 'src/cli/main.ts'), 'serve'], cwd: options.beforeDir }) }
        : undefined;
    if (before) servers.push(before.server);
    const floor = await startFloor(ds.url);
    servers.push(floor);
    const paths = await floorCasePaths(ours.origin, ds.key);
    const beforePaths = before ? await floorCasePaths(before.server.origin, before.key) : undefined;
    const cases = Object.keys(paths).map((name) => ({ name, ours: [] as Measured[], before: [] as Measured[], floor: [] as Measured[] }));
    const pids = servers.map((s) => s.child.pid).filter((pid): pid is number => pid !== undefined);
    const run = async (name: string, url: string, key = ds.key) => {
      options.log(`  ${ds.dialect} ${ds.payments}: ${name}`);
      const measured = await hammer(url, key, options.seconds, options.connections);
      // What the run left in flight (the floor's slow counts) must not be charged to the next.
      await untilQuiet(pids, ds);
      return measured;
    };
    for (let round = 1; round <= options.rounds; round++) {
      for (const c of cases) {
        const path = paths[c.name];
        c.ours.push(await run(`${c.name} (ours, round ${round})`, ours.origin + path));
        if (before && beforePaths) c.before.push(await run(`${c.name} (before, round ${round})`, before.server.origin + beforePaths[c.name], before.key));
        c.floor.push(await run(`${c.name} (the floor, round ${round})`, floor.origin + path));
      }
    }
    return { cases };
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}


/** Per case, the median over rounds of each round's ratios (ours ÷ floor, before ÷ floor, ours ÷ before) and of the rates. */
export function printFloorRounds(ds: Dataset, result: FloorRounds): void {
  const withBefore = result.cases.some((c) => c.before.length > 0);
  const rounds = result.cases[0]?.ours.length ?? 0;
  console.log(`\n#### ${ds.dialect}, ${ds.payments.toLocaleString('en')} payments: ours ÷ the floor, req/s, median of ${rounds} alternating rounds\n`);
  console.log(`| case | ours ÷ floor |${withBefore ? ' before ÷ floor | ours ÷ before |' : ''} ours · ${withBefore ? 'before · ' : ''}floor req/s |`);
  console.log(`|---|---|${withBefore ? '---|---|' : ''}---|`);
  for (const c of result.cases) {
    const per = (a: Measured[], b: Measured[]) => median(a.map((m, i) => m.rps / b[i].rps)).toFixed(2);
    const rates = [c.ours, ...(withBefore ? [c.before] : []), c.floor].map((m) => Math.round(median(m.map((x) => x.rps))).toLocaleString('en')).join(' · ');
    const errors = [...c.ours, ...c.before, ...c.floor].reduce((sum, m) => sum + m.errors, 0);
    const cells = [per(c.ours, c.floor), ...(withBefore ? [per(c.before, c.floor), per(c.ours, c.before)] : []), `${rates}${errors ? ` · ${errors} errors` : ''}`];
    console.log(`| ${c.name} | ${cells.join(' | ')} |`);
  }
}
