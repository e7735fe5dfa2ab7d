import type { Dialect } from './schema.ts';

/** Rows each counter is spread over on PostgreSQL (migration 0008); readers sum them. */
export const COUNTER_SHARDS = 16;

/**
 * The shard one write adds its count deltas to. At random on PostgreSQL, so that concurrent
 * writers of a tenant rarely wait on the same rows; SQLite writes one at a time and keeps 0.
 */
export function pickShard(dialect: Dialect): number {
  return dialect === 'postgres' ? Math.floor(Math.random() * COUNTER_SHARDS) : 0;
}
