import type { CsvColumn } from './csvColumns.ts';
import { csvCell, csvLine } from './csvText.ts';

/** A JSON string's text with nothing escaped in it: no quote, backslash or control character. */
const PLAIN_TEXT = '[^"\\\\\\u0000-\\u001f]*';

/**
 * What a value of each kind may look like for its text to be its cell with no parsing, one
 * capture each: a string written without escapes, an integer as JSON.stringify writes one
 * (within 15 digits, so the number reads back to the same digits), `true`/`false`, a map of
 * such strings; or null.
 */
const VALUE: Record<CsvColumn['kind'], string | undefined> = {
  string: `(?:"(${PLAIN_TEXT})"|null)`,
  integer: '(0|-?[1-9]\\d{0,14}|null)',
  boolean: '(true|false|null)',
  object: `(\\{(?:"${PLAIN_TEXT}":"${PLAIN_TEXT}"(?:,"${PLAIN_TEXT}":"${PLAIN_TEXT}")*)?\\}|null)`,
  other: undefined,
};

/**
 * The pattern of a record whose keys are the columns', in the columns' order (a nested object's
 * keys together, inside it), each value as VALUE allows; undefined when the columns cannot be
 * laid out so (deeper nesting, a parent split up, a kind with no pattern).
 */
export function recordLayout(columns: CsvColumn[]): RegExp | undefined {
  let pattern = '^\\{';
  let parent: string | undefined;
  const closed = new Set<string>();
  for (const [i, column] of columns.entries()) {
    const value = VALUE[column.kind];
    if (value === undefined || column.path.length > 2) return undefined;
    const [top, inner] = column.path;
    const within = inner === undefined ? undefined : top;
    if (within !== parent) {
      if (parent !== undefined) {
        pattern += '\\}';
        closed.add(parent);
      }
      if (within !== undefined) {
        if (closed.has(within)) return undefined;
        pattern += `${i === 0 ? '' : ','}"${within}":\\{`;
      }
    }
    const opensObject = within !== undefined && within !== parent;
    parent = within;
    pattern += `${i === 0 || opensObject ? '' : ','}"${inner ?? top}":${value}`;
  }
  if (parent !== undefined) pattern += '\\}';
  return new RegExp(`${pattern}\\}$`);
}

/**
 * `csvLine` for these columns, quicker for the records nearly all are: laid out as the schema
 * says, their strings written without escapes. One regular expression cuts such a record's
 * values out of its text instead of `JSON.parse`: a captured string is the string itself, a
 * captured map is the text JSON.stringify would give it again, and each goes to `csvCell` as
 * `csvLine` would send it; a number or boolean is written as captured. This relies on the stored
 * text being what JSON.stringify wrote (keys in order, numbers and maps as it spells them), as
 * every stored resource is. Any other record goes to `csvLine` itself. Measured on 200,000
 * stored payments (all of them the quick way): 1.3 µs a record against 3.1–3.6 µs for
 * `csvLine`; the pattern alone takes 0.55 µs, `JSON.parse` 1.5–1.9 µs.
 */
export function csvLineRenderer(columns: CsvColumn[]): (resource: string) => string {
  const layout = recordLayout(columns);
  if (!layout) return (resource) => csvLine(columns, resource);
  const kinds = columns.map((c) => c.kind);
  return (resource) => {
    const values = layout.exec(resource);
    if (values === null) return csvLine(columns, resource);
    let line = '';
    for (let i = 0; i < kinds.length; i++) {
      // A string's capture is undefined when it was null; anything else captured `null` as text.
      const value = values[i + 1];
      const cell = kinds[i] === 'string' ? csvCell(value) : value === 'null' ? '' : kinds[i] === 'object' ? csvCell(value) : value;
      line += i === 0 ? cell : `,${cell}`;
    }
    return `${line}\r\n`;
  };
}
