import { resolve } from 'node:path';
import { startServer, type RunningServer } from '../server.ts';
import { walk, type Measured, type Walk } from '../scenarios.ts';

/** One list case measured on the service and on the floor, back to back in the same run. */
export interface FloorCase {
  name: string;
  ours: Measured;
  floor: Measured;
  /** Both answered the same envelope, byte for byte but for their origins (checked once per case). */
  sameAnswer: boolean;
}

export interface AgainstFloor {
  cases: FloorCase[];
  /** The walk of all payments at per_page=5000 on the floor (only up to 1M rows: OFFSET makes it quadratic). */
  walk?: Walk;
}

/** Starts the floor (floorServer.ts) on the same database as the service. */
export function startFloor(databaseUrl: string): Promise<RunningServer> {
  return startServer(databaseUrl, { command: [resolve('scripts/bench/floor/floorServer.ts')] });
}

async function sameAnswer(ourOrigin: string, floorOrigin: string, path: string, key: string): Promise<boolean> {
  const text = async (origin: string) => {
    const response = await fetch(origin + path, { headers: { authorization: `Bearer ${key}` } });
    return (await response.text()).replaceAll(origin, '');
  };
  return (await text(ourOrigin)) === (await text(floorOrigin));
}

/**
 * Hammers each path on the service and then on the floor, alternating case by case so that a
 * noisy neighbour hurts both alike; first checks that both give the same answer.
 */
export async function measureAgainstFloor(
  ourOrigin: string,
  floorOrigin: string,
  key: string,
  paths: Record<string, string>,
  measure: (name: string, url: string) => Promise<Measured>,
  walkPayments: boolean,
): Promise<AgainstFloor> {
  const cases: FloorCase[] = [];
  for (const [name, path] of Object.entries(paths)) {
    const same = await sameAnswer(ourOrigin, floorOrigin, path, key);
    const ours = await measure(`${name} (ours, beside the floor)`, ourOrigin + path);
    const floor = await measure(`${name} (the floor)`, floorOrigin + path);
    cases.push({ name, ours, floor, sameAnswer: same });
  }
  return { cases, walk: walkPayments ? await walk(floorOrigin, '/v3/payments?per_page=5000', key) : undefined };
}
