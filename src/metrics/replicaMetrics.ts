import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadRouting } from '../db/readReplicas.ts';

/**
 * Read replicas in /metrics: reads by where they ran and why (`db_reads_total{target,reason}`;
 * reason `caught-up`, `behind-tenant`, `unusable`, `replica-failed` or `no-replica`), and per
 * replica its state and how old its data may be (measured against the primary's own position).
 */
export function registerReplicaMetrics(register: Registry, reads: ReadRouting): void {
  new Counter({
    name: 'db_reads_total',
    help: 'Tenant reads (lists, single reads, exports, events) by the database that answered (primary, or a replica host:port) and why there',
    labelNames: ['target', 'reason'],
    registers: [register],
    collect() {
      this.reset();
      for (const { target, reason, n } of reads.readCounts()) this.inc({ target, reason }, n);
    },
  });
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: "How old a read replica's data may be: seconds since the primary was last seen at a WAL position the replica has replayed (+Inf: unknown)",
    labelNames: ['replica'],
    registers: [register],
    // Under WORKERS=n each worker asks on its own: the worst answer, not their sum.
    aggregator: 'max',
    collect() {
      this.reset();
      for (const r of reads.views()) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'db_replica_up',
    help: 'A read replica that answered as a standby within the lag bound (1), or not (0: down, promoted, lagging, or not asked yet)',
    labelNames: ['replica', 'status'],
    registers: [register],
    aggregator: 'min',
    collect() {
      this.reset();
      for (const r of reads.views()) this.set({ replica: r.name, status: r.status }, r.status === 'up' && r.lagMs <= reads.maxLagMs ? 1 : 0);
    },
  });
}
