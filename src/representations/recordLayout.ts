import type { CsvColumn } from './csvColumns.ts';

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
 * The fixed text of a record laid out as its columns say: `before[i]` is what comes before
 * column i's value (its key, and the braces and key of a nested object it opens or closes),
 * `closing` what follows the last value. Undefined when the columns cannot be laid out so
 * (deeper nesting, a parent split up, a kind with no pattern).
 */
export function layoutText(columns: CsvColumn[]): { before: string[]; closing: string } | undefined {
  const before: string[] = [];
  let pending = '{';
  let parent: string | undefined;
  const closed = new Set<string>();
  for (const [i, column] of columns.entries()) {
    if (VALUE[column.kind] === undefined || column.path.length > 2) return undefined;
    const [top, inner] = column.path;
    const within = inner === undefined ? undefined : top;
    if (within !== parent) {
      if (parent !== undefined) {
        pending += '}';
        closed.add(parent);
      }
      if (within !== undefined) {
        if (closed.has(within)) return undefined;
        pending += `${i === 0 ? '' : ','}"${within}":{`;
      }
    }
    const opensObject = within !== undefined && within !== parent;
    parent = within;
    before.push(`${pending}${i === 0 || opensObject ? '' : ','}"${inner ?? top}":`);
    pending = '';
  }
  return { before, closing: `${parent !== undefined ? '}' : ''}}` };
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The pattern of a record whose keys are the columns', in the columns' order (a nested object's
 * keys together, inside it), each value as VALUE allows, one capture per column; undefined when
 * the columns cannot be laid out so. `text` is the columns' layoutText, when the caller has it.
 */
export function recordLayout(columns: CsvColumn[], text = layoutText(columns)): RegExp | undefined {
  if (!text) return undefined;
  const values = columns.map((column, i) => escaped(text.before[i]) + VALUE[column.kind]);
  return new RegExp(`^${values.join('')}${escaped(text.closing)}$`);
}
