import { PostgresAdapter, type Kysely } from 'kysely';
import type { Dialect } from './schema.ts';

/** Which database a Kysely instance (or transaction) speaks to, for SQL text that differs between them. */
export function dialectOf(db: Pick<Kysely<never>, 'getExecutor'>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
