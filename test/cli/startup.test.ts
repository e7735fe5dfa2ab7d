import { describe, expect, it } from 'vitest';
import { describeReplicas, startupSummary } from '../../src/cli/startup.ts';
import { loadConfig } from '../../src/config/loadConfig.ts';

const REPLICAS = 'postgres://app:secret@replica1.internal:5432/payments, postgres://app:secret@10.0.0.8/payments';

describe('the start-up line on read replicas', () => {
  it('says SQLite ignores DATABASE_REPLICA_URLS', () => {
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', DATABASE_REPLICA_URLS: REPLICAS });
    expect(startupSummary(config, 'http://127.0.0.1:3000').msg).toContain(
      'read replicas ignored: DATABASE_REPLICA_URLS is for PostgreSQL, the database is SQLite',
    );
  });

  it('names each replica by host and port, with what it answered, never its credentials', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://app:secret@db.internal:5432/payments', DATABASE_REPLICA_URLS: REPLICAS, REPLICA_MAX_LAG_MS: '2500' });
    expect(config.replicaUrls).toHaveLength(2);
    const line = startupSummary(config, 'http://127.0.0.1:3000', [
      { name: 'replica1.internal:5432', status: 'up', replayed: 1, lagMs: 3 },
      { name: '10.0.0.8:5432', status: 'down', replayed: -1, lagMs: Number.POSITIVE_INFINITY },
    ]).msg;
    expect(line).toContain(
      "read replicas replica1.internal:5432 (replaying, lag 3 ms) and 10.0.0.8:5432 (down), reads after each tenant's last write, else the primary; lag bound 2500 ms",
    );
    expect(line).not.toContain('secret');
    expect(describeReplicas(config)).toContain('read replicas replica1.internal:5432 and 10.0.0.8:5432,');
  });

  it('says nothing of replicas when none is configured', () => {
    expect(describeReplicas(loadConfig({ DATABASE_URL: 'postgres://app@db.internal:5432/payments' }))).toBeUndefined();
  });
});
