import { sql, type RawBuilder } from 'kysely';

/**
 * SQLite: rows added to a counted table by one upsert whose rows travel as one JSON array
 * (json_each): its text is one per table whatever the number of rows, compiled once and kept
 * prepared, where a VALUES list of each fold's size was built by Kysely, looked up by its whole
 * text and compiled by SQLite anew every time (decision 0099). `n` adds to the row's count.
 */
export function sqliteRowsUpsert<R extends { n: number }>(table: string, rows: R[]): RawBuilder<unknown> {
  const columns = Object.keys(rows[0]) as Array<keyof R & string>;
  const keys = columns.filter((column) => column !== 'n');
  const json = JSON.stringify(rows.map((row) => columns.map((column) => row[column])));
  const picks = columns.map((_column, i) => sql`r.value ->> ${sql.lit(i)}`);
  return sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    select ${sql.join(picks)} from json_each(${json}) as r where true
    on conflict (${sql.join(keys.map((column) => sql.ref(column)))}) do update set n = ${sql.ref(`${table}.n`)} + excluded.n`;
}
