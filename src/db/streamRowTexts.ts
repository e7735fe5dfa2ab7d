import type { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { StatementWithSettings } from './poolerSafeClient.ts';
import { driverFlagsOf } from './driverFlags.ts';
import { preparedFull, preparedQueryOn } from './preparedStatements.ts';

/** Each row's fields as the text PostgreSQL sent (null for SQL NULL), in the statement's column order. */
export type RowTextSink = (fields: ReadonlyArray<string | null>) => void;

/**
 * node-postgres' own query, except that each row goes to a sink as the protocol parser hands it
 * over, as text: no row object, no type parsing, and no array of every row kept until the last
 * one has come. What a big page's rows cost the collector was their living that long: strings
 * surviving young-generation collections were copied, then promoted and marked.
 */
class RowsToSink extends StatementWithSettings {
  readonly #sink: RowTextSink;
  #failure: Error | undefined;

  constructor(config: pg.QueryConfig, sink: RowTextSink, callback: (error: Error | undefined) => void) {
    super(config, (error: Error | undefined) => callback(error ?? this.#failure));
    this.#sink = sink;
  }

  protected override statementRow(message: { fields: Array<string | null> }): void {
    if (this.#failure) return;
    try {
      this.#sink(message.fields);
    } catch (error) {
      // The rest of the rows still come (the protocol goes on to the end); the failure is the answer.
      this.#failure = error as Error;
    }
  }
}

/**
 * Runs one statement on a pooled connection, its rows going to `sink` as they arrive. A statement
 * flagged `prepared` goes by its name, as through Kysely (preparingPostgresDriver.ts).
 */
export async function streamRowTexts(pool: pg.Pool, query: CompiledQuery, sink: RowTextSink): Promise<void> {
  const client = await pool.connect();
  try {
    const { sql: text } = query;
    const values = query.parameters as unknown[];
    const config: pg.QueryConfig = driverFlagsOf(query).prepared ? preparedQueryOn(client, text, values) : { text, values };
    await new Promise<void>((resolve, reject) => {
      client.query(new RowsToSink(config, sink, (error) => (error ? reject(error) : resolve())) as unknown as pg.Submittable);
    });
  } finally {
    client.release(preparedFull(client) ? new Error('prepared statements at their limit') : undefined);
  }
}
