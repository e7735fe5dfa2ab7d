import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { startServer } from '../bench/server.ts';

export interface ProbedMemory {
  /** Live heap right after a full GC, MB. */
  liveHeapMb: number;
  rssMb: number;
  /** Memory outside the JS heap that V8 knows of (Buffers and the like), after the same GC. */
  externalMb: number;
}

export interface SoakServer {
  origin: string;
  /** The most recent after-GC reading (see gcProbe.ts). */
  lastProbe(): ProbedMemory | undefined;
  /**
   * The lowest live heap read since the previous call (the last reading when there was none):
   * a reading taken while a big page was being built counts that page as live, the floor does not.
   */
  takeFloor(): ProbedMemory | undefined;
  /** With heap snapshots on: asks for one (written to data/soak/). */
  snapshot(): void;
  stop(): Promise<void>;
}

/** `cli serve` as its own process (the bench's starter), with the GC probe loaded. */
export async function startSoakServer(databaseUrl: string, heapSnapshots = false): Promise<SoakServer> {
  let probe: ProbedMemory | undefined;
  let floor: ProbedMemory | undefined;
  // The server's working directory with snapshots on: a PostgreSQL soak creates no file there of its own.
  if (heapSnapshots) mkdirSync(resolve('data/soak'), { recursive: true });
  const server = await startServer(databaseUrl, {
    // --heapsnapshot-signal: SIGUSR2 makes the server write a heap snapshot into its working directory.
    nodeArgs: ['--expose-gc', ...(heapSnapshots ? ['--heapsnapshot-signal=SIGUSR2'] : []), '--import', resolve('scripts/soak/gcProbe.ts')],
    cwd: heapSnapshots ? resolve('data/soak') : process.cwd(),
    onStderrLine(line) {
      const match = /^\[gc-probe\] (.*)$/.exec(line);
      if (!match) return void process.stderr.write(`${line}\n`);
      const m = JSON.parse(match[1]) as { heapUsed: number; rss: number; external: number };
      probe = { liveHeapMb: m.heapUsed / 1024 / 1024, rssMb: m.rss / 1024 / 1024, externalMb: m.external / 1024 / 1024 };
      if (!floor || probe.liveHeapMb < floor.liveHeapMb) floor = probe;
    },
  });
  return {
    origin: server.origin,
    lastProbe: () => probe,
    takeFloor: () => {
      const lowest = floor ?? probe;
      floor = undefined;
      return lowest;
    },
    snapshot: () => server.child.kill('SIGUSR2'),
    stop: server.stop,
  };
}
