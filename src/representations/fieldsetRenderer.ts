import type { TSchema } from 'typebox';
import { csvColumnsOf, type CsvColumn } from './csvColumns.ts';
import { recordLayout } from './recordLayout.ts';

const layouts = new WeakMap<TSchema, { columns: CsvColumn[]; layout: RegExp | undefined }>();

/** A schema's columns and record pattern, made once: a request only picks its fields from them. */
function layoutOf(schema: TSchema) {
  let known = layouts.get(schema);
  if (!known) {
    const columns = csvColumnsOf(schema);
    known = { columns, layout: recordLayout(columns) };
    layouts.set(schema, known);
  }
  return known;
}

/**
 * `JSON.stringify` of a stored record trimmed to the fields in `keep`, for records of `schema`: `trim`
 * itself, quicker for nearly all records. When every kept field is a top-level scalar, the CSV
 * pattern (recordLayout) cuts them out and its captures are already JSON, so nothing is parsed
 * (decision 0009). Anything else goes to `trim`.
 */
export function fieldsetRenderer(schema: TSchema, keep: ReadonlySet<string>, trim: (row: string) => string): (row: string) => string {
  const { columns, layout } = layoutOf(schema);
  const picked = columns.flatMap((column, i) =>
    column.path.length === 1 && keep.has(column.name) ? [{ name: column.name, kind: column.kind, capture: i + 1 }] : [],
  );
  const scalar = picked.every((p) => p.kind === 'string' || p.kind === 'integer' || p.kind === 'boolean');
  if (!layout || !scalar || picked.length !== keep.size) return trim;
  return (row) => {
    const values = layout.exec(row);
    if (values === null) return trim(row);
    let out = '{';
    for (let i = 0; i < picked.length; i++) {
      const { name, kind, capture } = picked[i];
      const value = values[capture];
      // A string's capture is undefined when it was null; anything else captured `null` as text.
      const json = kind === 'string' ? (value === undefined ? 'null' : `"${value}"`) : value;
      out += `${i === 0 ? '' : ','}"${name}":${json}`;
    }
    return `${out}}`;
  };
}
