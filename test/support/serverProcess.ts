import { startServerProcess, type ServerProcess } from '../../scripts/support/serverProcess.ts';

export type { ServerProcess };

/** `cli serve` as its own process with this environment (the one starter the bench and soak use too). */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess({ env });
}
