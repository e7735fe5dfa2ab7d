import type { ChildProcess } from 'node:child_process';
import { startServerProcess, type ServerOptions } from '../support/serverProcess.ts';

export interface RunningServer {
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `cli serve` on one dataset for the benchmark and the soak (scripts/support/serverProcess.ts), logging warnings only. */
export async function startServer(databaseUrl: string, options: ServerOptions = {}): Promise<RunningServer> {
  const server = await startServerProcess({
    onStderrLine: (line) => process.stderr.write(`${line}\n`),
    ...options,
    env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...options.env },
  });
  return {
    origin: server.url,
    child: server.child,
    stop: async () => {
      await server.stop();
    },
  };
}
