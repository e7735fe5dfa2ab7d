import { parentPort, workerData } from 'node:worker_threads';
import type { PgPooler } from '../config/loadConfig.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { SeedInputError, seedTenant, type SeedOptions } from '../seed/seedTenant.ts';

/** What the `seed` command hands its worker (seedCommand in main.ts). */
export interface SeedWorkerData {
  databaseUrl: string;
  poolMax: number;
  pooler: PgPooler;
  options: Omit<SeedOptions, 'until' | 'signal' | 'onProgress' | 'onPhase'> & { until: string };
}

/** What the worker tells the command: progress after every batch, then a result or an error. */
export type SeedWorkerMessage =
  | { type: 'progress'; progress: Parameters<NonNullable<SeedOptions['onProgress']>>[0] }
  | { type: 'phase'; phase: Parameters<NonNullable<SeedOptions['onPhase']>>[0] }
  | { type: 'result'; result: Awaited<ReturnType<typeof seedTenant>> }
  | { type: 'error'; message: string; stack?: string; input: boolean };

const port = parentPort!;
const { databaseUrl, poolMax, pooler, options } = workerData as SeedWorkerData;
const stop = new AbortController();
port.on('message', (message) => {
  if (message === 'stop') stop.abort();
});
const send = (message: SeedWorkerMessage) => port.postMessage(message);

const db = openDatabase(databaseUrl, { poolMax, pooler, sqliteReaders: false });
try {
  await migrateToLatest(db.kysely, db.dialect);
  const result = await seedTenant(db, {
    ...options,
    until: new Date(options.until),
    signal: stop.signal,
    onProgress: (progress) => send({ type: 'progress', progress }),
    onPhase: (phase) => send({ type: 'phase', phase }),
  });
  send({ type: 'result', result });
} catch (error) {
  const e = error instanceof Error ? error : new Error(String(error));
  send({ type: 'error', message: e.message, stack: e.stack, input: e instanceof SeedInputError });
} finally {
  await db.close();
  port.close();
}
