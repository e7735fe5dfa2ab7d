import pg from 'pg';

/**
 * What a statement carries behind a pooler: the settings statement to run first when it starts a
 * transaction of its own, and whether a name may be kept (a transaction pooler hands the next
 * transaction to any server connection, where a statement prepared on another is unknown).
 */
export interface Carriage {
  settingsSql: string;
  namedStatements: boolean;
}

/** Marks a statement's config to go without the settings (DriverFlags.alone). */
export const SENT_ALONE = Symbol('sent alone');

/** BEGIN and START TRANSACTION, with or without their modes. */
const TRANSACTION_START = /^\s*(begin|start\s+transaction)\b/i;

/** The part of node-postgres' Connection a query writes to. */
export interface PgConnection {
  query(text: string): void;
  parse(message: { text: string; name: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
}

/** node-postgres' Query as it is (its types declare only the constructor and `submit`). */
interface NodePgQuery {
  text: string | undefined;
  name: string | undefined;
  callback: ((error: Error | null, result: unknown) => void) | undefined;
  requiresPreparation(): boolean;
  submit(connection: PgConnection): Error | null;
  prepare(connection: PgConnection): void;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: { fields: Array<string | null> }): void;
  handleCommandComplete(message: unknown, connection: PgConnection): void;
}
const NodePgQuery = pg.Query as unknown as new (config: unknown, values?: unknown, callback?: unknown) => NodePgQuery;

/**
 * node-postgres' query, sent behind the settings when it runs outside an explicit transaction:
 * both in one batch, one implicit transaction, one round trip, so a pooler keeps them on one server
 * connection (decision 0010). The settings' own answer is dropped. Inside an explicit transaction
 * nothing is added: it got the settings with its BEGIN.
 */
export class StatementWithSettings extends NodePgQuery {
  #carriage: Carriage | undefined;
  #inTransaction: () => boolean = () => false;
  #settingsSql: string | undefined;
  /** True while what arrives answers the settings statement, not the statement itself: dropped. */
  #dropping = false;
  /** BEGIN goes first (its isolation level must precede any query), the settings right after it. */
  #settingsAfter = false;

  /** Set by the client; what is carried is decided when the statement is sent (it may wait in a queue). */
  travelWith(carriage: Carriage, inTransaction: () => boolean): void {
    this.#carriage = carriage;
    this.#inTransaction = inTransaction;
  }

  override submit(connection: PgConnection): Error | null {
    const carriage = this.#carriage;
    if (carriage) {
      if (!carriage.namedStatements) this.name = undefined;
      this.#settingsSql = this.#inTransaction() ? undefined : carriage.settingsSql;
      if (this.#settingsSql !== undefined && !this.requiresPreparation()) {
        if (typeof this.text !== 'string') return new Error('A query must have text.');
        this.#settingsAfter = TRANSACTION_START.test(this.text);
        this.#dropping = !this.#settingsAfter;
        connection.query(this.#settingsAfter ? `${this.text}; ${this.#settingsSql}` : `${this.#settingsSql}; ${this.text}`);
        return null;
      }
      this.#dropping = this.#settingsSql !== undefined;
    }
    return super.submit(connection);
  }

  override prepare(connection: PgConnection): void {
    if (this.#settingsSql !== undefined) {
      connection.parse({ text: this.#settingsSql, name: '', types: [] });
      connection.bind({ portal: '', statement: '', values: [] });
      connection.execute({ portal: '', rows: 0 });
    }
    super.prepare(connection);
  }

  override handleRowDescription(message: unknown): void {
    if (!this.#dropping) super.handleRowDescription(message);
  }

  override handleDataRow(message: { fields: Array<string | null> }): void {
    if (!this.#dropping) this.statementRow(message);
  }

  /** A row of the statement itself (never of the settings). */
  protected statementRow(message: { fields: Array<string | null> }): void {
    super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (this.#dropping) {
      this.#dropping = false;
      return;
    }
    super.handleCommandComplete(message, connection);
    if (this.#settingsAfter) this.#dropping = true;
  }
}

/**
 * A client class for pg.Pool whose every statement carries `carriage`: statements given as text or
 * config become StatementWithSettings; those that already are one (streamRowTexts.ts) are told
 * what to carry; any other submittable (COPY streams) goes as it is, which is right inside a
 * transaction: that has the settings from its first statement on.
 */
export function poolerSafeClient(carriage: Carriage): typeof pg.Client {
  return class PoolerSafeClient extends pg.Client {
    #inTransaction = () => {
      // 'T' in a transaction block, 'E' in a failed one, from the last ReadyForQuery.
      const status = (this as unknown as { getTransactionStatus(): string | null }).getTransactionStatus();
      return status === 'T' || status === 'E';
    };

    // biome-ignore lint/suspicious/noExplicitAny: node-postgres' overloads, passed through
    override query(config: any, values?: any, callback?: any): any {
      if (config?.[SENT_ALONE]) return super.query(config, values, callback);
      if (config && typeof config.submit === 'function') {
        if (config instanceof StatementWithSettings) config.travelWith(carriage, this.#inTransaction);
        return super.query(config, values, callback);
      }
      const statement = new StatementWithSettings(config, values, callback);
      statement.travelWith(carriage, this.#inTransaction);
      if (statement.callback) {
        super.query(statement as unknown as pg.Submittable);
        return undefined;
      }
      return new Promise((resolve, reject) => {
        statement.callback = (error, result) => (error ? reject(error) : resolve(result));
        super.query(statement as unknown as pg.Submittable);
      });
    }
  };
}
