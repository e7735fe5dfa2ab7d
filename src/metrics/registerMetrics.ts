import cluster from 'node:cluster';
import { measureFoldLag } from '../lists/index.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/database.ts';
import type { ReadRouting } from '../db/readReplicas.ts';
import { registerReplicaMetrics } from './replicaMetrics.ts';
import { isDatabaseUnavailable } from '../db/databaseErrors.ts';
import { isClientAbort } from '../core/clientAborts.ts';
import { askPrimaryForMetrics } from './clusterMetrics.ts';

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route pattern (`/v3/payments/:payment`), never the raw URL: ids would explode the label space. */
function routeLabel(route: string | undefined): string {
  return route ?? 'unmatched';
}

/**
 * Prometheus metrics at GET /metrics: per-route request counts and latency, server errors,
 * database pool use, and prom-client's process defaults (memory, CPU, event-loop delay, GC).
 * One registry per app so several apps in one process (tests) never clash.
 */
export function registerMetrics(app: FastifyInstance, db: Db, reads?: ReadRouting): Registry {
  const register = new Registry();
  collectDefaultMetrics({ register });
  const labelNames = ['method', 'route', 'status_class'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status class',
    labelNames,
    registers: [register],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent, by route pattern, method and status class',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [register],
  });
  const serverErrors = new Counter({
    name: 'http_server_errors_total',
    help: 'Responses with a 5xx status, by route pattern, method and status',
    labelNames: ['method', 'route', 'status'],
    registers: [register],
  });
  const unavailable = new Counter({
    name: 'db_unavailable_errors_total',
    help: 'Requests answered 503 because the database was unreachable or going away',
    registers: [register],
  });
  const clientAborts = new Counter({
    name: 'http_client_aborts_total',
    help: 'Requests whose client hung up, reset the connection or was too slow to send them (request timeout) before they were answered',
    registers: [register],
  });
  // One measurement per scrape for both gauges (a statement per tenant).
  let lag: { at: number; measured: Promise<{ changes: number; seconds: number }> } | undefined;
  const foldLag = () => {
    if (!lag || Date.now() - lag.at > 1000) lag = { at: Date.now(), measured: measureFoldLag(db).catch(() => ({ changes: Number.NaN, seconds: Number.NaN })) };
    return lag.measured;
  };
  new Gauge({
    name: 'count_fold_lag_changes',
    help: "List changes recorded by writes and not yet folded into the lists' counts (reads add them; docs/decisions/0040-counts-as-a-real-time-aggregate.md)",
    registers: [register],
    async collect() {
      this.set((await foldLag()).changes);
    },
  });
  new Gauge({
    name: 'count_fold_lag_seconds',
    help: 'Age of the oldest list change not yet folded into the counts (0: none waiting)',
    registers: [register],
    async collect() {
      this.set((await foldLag()).seconds);
    },
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (total open, idle, requests waiting for one); SQLite has one always-open connection',
    labelNames: ['state'],
    registers: [register],
    collect() {
      const stats = db.poolStats();
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
      this.set({ state: 'max' }, stats.max);
    },
  });

  const tally = db.commitTally;
  if (tally) {
    new Counter({
      name: 'sqlite_write_transactions_total',
      help: 'Write transactions committed on SQLite',
      registers: [register],
      collect() {
        this.reset();
        this.inc(tally.transactions);
      },
    });
    new Counter({
      name: 'sqlite_commits_total',
      help: 'Commits those took: write transactions that waited for one another commit as one (docs/decisions/0093-sqlite-writes-commit-in-groups.md)',
      registers: [register],
      collect() {
        this.reset();
        this.inc(tally.commits);
      },
    });
  }

  if (reads) registerReplicaMetrics(register, reads);

  app.addHook('onResponse', (request, reply, done) => {
    const route = routeLabel(request.routeOptions.url);
    const status = reply.statusCode;
    const labels = { method: request.method, route, status_class: `${Math.floor(status / 100)}xx` };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    if (status >= 500) serverErrors.inc({ method: request.method, route, status: String(status) });
    done();
  });
  // A request is counted once, whether its abort was seen as an error, by Fastify, or both.
  const abortsCounted = new WeakSet<object>();
  const countAbort = (request: FastifyRequest) => {
    if (abortsCounted.has(request.raw)) return;
    abortsCounted.add(request.raw);
    clientAborts.inc();
  };
  app.addHook('onError', async (request, _reply, error) => {
    if (isClientAbort(request.raw, error)) countAbort(request);
    else if (isDatabaseUnavailable(error)) unavailable.inc();
  });
  app.addHook('onRequestAbort', async (request) => {
    countAbort(request);
  });

  // Under WORKERS=n a scrape reaches one worker; it answers with every worker's figures, summed
  // (or averaged, per metric) by the primary.
  if (cluster.isWorker) {
    new AggregatorRegistry(); // installs the listener that hands this worker's figures to the primary
    AggregatorRegistry.setRegistries([register]);
  }
  app.get('/metrics', { schema: { summary: 'Prometheus metrics', tags: ['operations'] } }, async (_request, reply) => {
    const text = cluster.isWorker ? await askPrimaryForMetrics() : await register.metrics();
    return reply.type(register.contentType).send(text);
  });
  return register;
}
