import type { Config } from '../config/loadConfig.ts';
import { StartupFailure } from './startupFailure.ts';

/** sysexits.h: a service (the port) unavailable; permission denied. */
const EX_UNAVAILABLE = 69;
const EX_NOPERM = 77;

/**
 * Why `serve` could not listen, as the one line that says what to do. Told apart from the
 * database's failures here, where it happens: a HOST that does not resolve says ENOTFOUND like
 * a database host that does not, and must not be blamed on DATABASE_URL.
 */
export function listenFailure(error: unknown, config: Pick<Config, 'port' | 'host'>): unknown {
  const { port, host } = config;
  switch ((error as { code?: unknown } | null)?.code) {
    case 'EADDRINUSE':
      return new StartupFailure(`port ${port} on ${host} is already in use: stop what listens there, or set PORT to another port`, EX_UNAVAILABLE, error);
    case 'EACCES':
      return new StartupFailure(`not allowed to listen on ${host}:${port}: use a port above 1023, or set PORT`, EX_NOPERM, error);
    case 'EADDRNOTAVAIL':
      return new StartupFailure(`cannot listen on ${host}: no such address on this machine; correct HOST (0.0.0.0 for every interface)`, EX_UNAVAILABLE, error);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new StartupFailure(
        `cannot listen on HOST=${host}: the name does not resolve (${(error as { code: string }).code}); correct HOST (an address of this machine, or 0.0.0.0 for every interface)`,
        EX_UNAVAILABLE,
        error,
      );
  }
  return error;
}
