import pg from 'pg';
import { DatabaseNotAnswering } from './databaseErrors.ts';

/** How long past its own limit a statement's answer may take: the server's cancellation, the network, a loaded machine. */
export const ANSWER_GRACE_MS = 2_000;

/**
 * A limit our own statements set for the rest of their transaction: an export's
 * `set local statement_timeout = N`, the migrations' `select set_config('statement_timeout', 'N', true)`.
 * Anchored at the start: a literal inside a statement (an export inlines its filters) sets nothing.
 */
const TRANSACTION_LIMIT =
  /^\s*(?:set\s+local\s+statement_timeout\s*(?:=|to)\s*'?(\d+)|select\s+set_config\(\s*'statement_timeout'\s*,\s*'(\d+)'\s*,\s*true\s*\))/i;

/** node-postgres' client as it is inside (its types declare none of this). */
interface ClientInside {
  connection: { stream: { destroy(error?: Error): void } };
  getTransactionStatus(): string | null;
}

/** What node-postgres calls on a statement when it ends, answered or failed. */
interface Settling {
  handleReadyForQuery(...args: unknown[]): void;
  handleError(...args: unknown[]): void;
}

/**
 * Ends `client`'s connection at once, whatever it is doing, its statement failing with `error`:
 * nothing is sent or waited for (the server may be gone). The pool drops a client so ended.
 */
export function giveUpConnection(client: pg.Client, error: Error): void {
  (client as unknown as ClientInside).connection.stream.destroy(error);
}

function settledThen<T extends (...args: never[]) => unknown>(callback: T, done: () => void): T {
  return ((...args: Parameters<T>) => {
    done();
    return callback(...args);
  }) as T;
}

export interface StatementDeadline {
  /** The statement limit (PG_STATEMENT_TIMEOUT_MS), above 0. */
  limitMs: number;
  /** Whether the database answers on a new connection (databaseAnswers.ts). */
  stillAnswering(): Promise<boolean>;
}

/**
 * A client class for pg.Pool whose statements never wait on a silent server (a host gone without
 * a reset): unanswered for the limit plus ANSWER_GRACE_MS, the connection is given up (a 503).
 * Where our own statement lifted or raised its transaction's limit (migrations, exports), the
 * database is asked on a new connection instead, and while it answers the wait goes on, to that
 * limit plus the grace. COPY streams are their readers' to bound (copySilence.ts).
 */
export function statementDeadlineClient(Base: typeof pg.Client, deadline: StatementDeadline): typeof pg.Client {
  const { limitMs, stillAnswering } = deadline;
  const boundMs = limitMs + ANSWER_GRACE_MS;
  return class StatementDeadlineClient extends Base {
    /** Set by a statement of ours for the rest of its transaction (0: none); undefined: `limitMs`. */
    #transactionLimitMs: number | undefined;

    // biome-ignore lint/suspicious/noExplicitAny: node-postgres' overloads (text, config or submittable; callback or promise), passed through
    override query(config: any, values?: any, callback?: any): any {
      // A COPY stream's wait is its reader's to bound (copySilence.ts): a slow reader is no silent server.
      if (config && typeof config.submit === 'function' && !(config instanceof pg.Query)) return super.query(config, values, callback);
      const done = this.#watch(this.#ownLimitOf(config));
      if (config && typeof config.submit === 'function') {
        const statement = config as Settling;
        statement.handleReadyForQuery = settledThen(statement.handleReadyForQuery.bind(statement), done);
        statement.handleError = settledThen(statement.handleError.bind(statement), done);
        return super.query(config, values, callback);
      }
      if (typeof values === 'function') return super.query(config, settledThen(values, done));
      if (typeof callback === 'function') return super.query(config, values, settledThen(callback, done));
      const result = super.query(config, values) as Promise<unknown>;
      result.then(done, done);
      return result;
    }

    /** The limit this statement runs under (0: none), taking note of one it sets for what follows. */
    #ownLimitOf(config: unknown): number {
      const status = (this as unknown as ClientInside).getTransactionStatus();
      if (status !== 'T' && status !== 'E') this.#transactionLimitMs = undefined;
      const own = this.#transactionLimitMs ?? limitMs;
      const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
      const set = typeof text === 'string' ? TRANSACTION_LIMIT.exec(text) : null;
      if (set) this.#transactionLimitMs = Number(set[1] ?? set[2]);
      return own;
    }

    /** Arms the bound of one statement; returns what ends it (once the statement is answered). */
    #watch(ownLimitMs: number): () => void {
      const started = performance.now();
      const patient = ownLimitMs === 0 || ownLimitMs > limitMs;
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      const expire = async () => {
        const waited = performance.now() - started;
        const ownBoundLeft = ownLimitMs === 0 ? Number.POSITIVE_INFINITY : ownLimitMs + ANSWER_GRACE_MS - waited;
        if (patient && ownBoundLeft > 0 && (await stillAnswering())) {
          if (!answered) arm(Math.min(boundMs, ownBoundLeft));
          return;
        }
        if (!answered) giveUpConnection(this, new DatabaseNotAnswering(Math.round(performance.now() - started)));
      };
      const arm = (ms: number) => {
        timer = setTimeout(() => void expire(), ms);
        timer.unref();
      };
      arm(boundMs);
      return () => {
        answered = true;
        clearTimeout(timer);
      };
    }
  };
}
