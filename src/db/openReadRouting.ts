import { openDatabase, type Db, type OpenOptions } from './database.ts';
import { PrimaryPositions } from './primaryPositions.ts';
import { ReadReplica, ReadRouting } from './readReplicas.ts';

/** The question of how far a replica (or the primary) is: one connection, and never long (a read waits for it at most 20 ms anyway). */
const PROBE_TIMEOUT_MS = 1_000;

/** `host:port` of a replica URL, as metrics and the start-up line name it (never its credentials). */
export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || 'localhost'}:${parsed.port || 5432}`;
}

export interface RoutingUrls {
  /** DATABASE_URL: the primary's position is sampled there, on a connection of its own. */
  primary: string;
  /** DATABASE_REPLICA_URLS */
  replicas: readonly string[];
}

/**
 * The reads' routing over `primary` and the replicas DATABASE_REPLICA_URLS names, each opened
 * with the primary's options (pool size, pooler, statement timeout). SQLite has no replicas:
 * the URLs are ignored there (the start-up line says so).
 */
export function openReadRouting(primary: Db, urls: RoutingUrls, options: OpenOptions, maxLagMs: number): ReadRouting {
  if (primary.dialect !== 'postgres' || urls.replicas.length === 0) return new ReadRouting(primary);
  const probeOptions = { ...options, poolMax: 1, connectionTimeoutMs: PROBE_TIMEOUT_MS, statementTimeoutMs: PROBE_TIMEOUT_MS };
  const positions = new PrimaryPositions(openDatabase(urls.primary, probeOptions));
  const replicas = urls.replicas.map((url) => new ReadReplica(replicaName(url), openDatabase(url, options), openDatabase(url, probeOptions), positions));
  return new ReadRouting(primary, replicas, maxLagMs, positions);
}
