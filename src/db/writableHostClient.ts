import pg from 'pg';
import { databaseBusyProblem, type HostRefusal, isDatabaseUnavailable, NoWritableHost, serverAnswer } from './databaseErrors.ts';
import type { PostgresHost } from '../config/postgresHosts.ts';
import { READ_ONLY_QUESTION } from './readOnlyQuestion.ts';

/** The settings PostgreSQL 14 and later report at connect (GUC_REPORT), as libpq reads them for read-write. */
const IN_HOT_STANDBY = 'in_hot_standby';
const DEFAULT_READ_ONLY = 'default_transaction_read_only';
/** However many hosts share the connect timeout, each gets at least this long. */
const LEAST_PER_HOST_MS = 1_000;

interface ClientConfig extends pg.ClientConfig {
  connectionTimeoutMillis?: number;
}

/** node-postgres' Client as it is inside (its types declare none of this). */
interface ClientInside {
  connection: pg.Connection & { stream: { destroy(): void }; end(): void };
}

/** The first of `hosts` to try next: the one that last took a writable connection, then the others in order. */
interface HostChoice {
  lastWritable: number;
}

const noop = () => {};

function reasonOf(error: unknown): string {
  const answer = serverAnswer(error);
  if (answer) return `answered "${answer.message}" (SQLSTATE ${answer.code})`;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `unreachable (${code})` : `unreachable (${(error as Error)?.message ?? String(error)})`;
}

/** A refusal that waiting cannot change (a wrong password, a missing database): no host may ever take us. */
function isFinal(error: unknown): boolean {
  return serverAnswer(error) !== undefined && !isDatabaseUnavailable(error) && databaseBusyProblem(error) === undefined;
}

/**
 * libpq's `target_session_attrs=read-write` for node-postgres: a pg.Pool client that tries the hosts
 * (last writable first) and keeps the first connection that takes writes; when none does, connect
 * fails with NoWritableHost (a 503) naming each (decision 0071). `Base` is pg.Client or
 * poolerSafeClient's class, whose question carries the settings behind a pooler (decision 0010).
 */
export function writableHostClient(Base: typeof pg.Client, hosts: PostgresHost[], behindPooler = false): typeof pg.Client {
  const choice: HostChoice = { lastWritable: 0 };
  return class WritableHostClient extends Base {
    readonly #config: ClientConfig;

    constructor(config?: string | ClientConfig) {
      const given: ClientConfig = typeof config === 'string' ? { connectionString: config } : { ...config };
      super({ ...given, connectionString: (hosts[0] as PostgresHost).url });
      this.#config = given;
    }

    // biome-ignore lint/suspicious/noExplicitAny: node-postgres' overloads (callback or promise), passed through
    override connect(callback?: any): any {
      const connected = this.#connectWritable();
      if (!callback) return connected.then(() => this);
      connected.then(
        () => callback(null, this),
        (error: Error) => callback(error),
      );
      return undefined;
    }

    async #connectWritable(): Promise<void> {
      const total = this.#config.connectionTimeoutMillis ?? 0;
      const perHost = total > 0 ? Math.max(LEAST_PER_HOST_MS, Math.floor(total / hosts.length)) : 0;
      const first = choice.lastWritable;
      const order = [first, ...hosts.map((_, i) => i).filter((i) => i !== first)];
      const refusals: Array<HostRefusal & { error?: unknown }> = [];
      for (const index of order) {
        const host = hosts[index] as PostgresHost;
        const reported = this.#startOver(host, perHost);
        try {
          await super.connect();
        } catch (error) {
          this.#abandon();
          refusals.push({ host: host.name, reason: reasonOf(error), readOnly: false, error });
          continue;
        }
        try {
          if (!(await this.#readOnly(reported))) {
            choice.lastWritable = index;
            return;
          }
          refusals.push({ host: host.name, reason: 'read-only (a standby, or set read-only)', readOnly: true });
        } catch (error) {
          refusals.push({ host: host.name, reason: reasonOf(error), readOnly: false, error });
        }
        this.#abandon();
      }
      if (refusals.every((r) => r.error !== undefined && isFinal(r.error))) throw refusals[0]?.error;
      throw new NoWritableHost(refusals.map(({ host, reason, readOnly }) => ({ host, reason, readOnly })));
    }

    /**
     * This client made new, for `host`: node-postgres' client connects once, so each attempt takes
     * the state of a client just made (its own listeners, the pool's among them, stay). Returns
     * what the server reports at connect, filled in as it arrives.
     */
    #startOver(host: PostgresHost, timeoutMs: number): Map<string, string> {
      const fresh = new pg.Client({ ...this.#config, connectionString: host.url, connectionTimeoutMillis: timeoutMs });
      const self = this as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(fresh)) {
        if (key !== '_events' && key !== '_eventsCount' && key !== '_maxListeners') self[key] = value;
      }
      const reported = new Map<string, string>();
      (this as unknown as ClientInside).connection.on('parameterStatus', (message: { parameterName: string; parameterValue: string }) =>
        reported.set(message.parameterName, message.parameterValue),
      );
      return reported;
    }

    /** Lets go of this attempt's connection without a word to the client (nor to the pool listening to it). */
    #abandon(): void {
      clearTimeout((this as unknown as { connectionTimeoutHandle?: NodeJS.Timeout }).connectionTimeoutHandle);
      const { connection } = this as unknown as ClientInside;
      connection.removeAllListeners();
      connection.on('error', noop);
      connection.end();
      connection.stream.destroy();
    }

    async #readOnly(reported: Map<string, string>): Promise<boolean> {
      // A pooler's welcome repeats what its first server connection reported, long ago: a standby
      // promoted since still says in_hot_standby=on through PgBouncer. Asked there, always.
      const inHotStandby = behindPooler ? undefined : reported.get(IN_HOT_STANDBY);
      if (inHotStandby !== undefined) return inHotStandby === 'on' || reported.get(DEFAULT_READ_ONLY) === 'on';
      // A server that reports neither (before 14): asked, as libpq does. A connection that ends
      // meanwhile (a pooler whose server is gone hangs up) fails the question, and is also an
      // 'error' event nobody listens to yet (the pool does once connect returns): kept quiet here.
      this.on('error', noop);
      try {
        const { rows } = await this.query<{ read_only: boolean }>(READ_ONLY_QUESTION);
        return rows[0]?.read_only === true;
      } finally {
        this.off('error', noop);
      }
    }
  };
}
