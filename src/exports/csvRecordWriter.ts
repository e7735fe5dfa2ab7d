import type { CsvColumn } from '../representations/csvColumns.ts';
import { layoutText, recordLayout } from '../representations/recordLayout.ts';

const COMMA = 0x2c;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;

/** Kinds as the writer tells them apart. */
const STRING = 0;
const SCALAR = 1;
const MAP = 2;

export interface CsvRecordWriter {
  /**
   * Writes the CSV line (CRLF-terminated) of the stored record `src[from, to)` into `out` at
   * `at` and returns where it ends; -1, having written nothing, for a record not laid out as the
   * schema says (the caller then uses `csvLine`). `out` must have `maxBytes(to - from)` bytes free.
   */
  write(src: Buffer, from: number, to: number, out: Buffer, at: number): number;
  maxBytes(recordBytes: number): number;
}

/**
 * The CSV line of a stored record copied byte for byte out of its UTF-8 text, for records laid out as
 * the schema says (recordLayout), nothing decoded or encoded (decision 0009). Read as Latin-1, so the
 * captures have the values' byte lengths; exact for any UTF-8, as the pattern looks only at ASCII.
 * The cells are `csvCell`'s. Undefined when the columns have no layout.
 */
export function csvRecordWriter(columns: CsvColumn[]): CsvRecordWriter | undefined {
  const text = layoutText(columns);
  const layout = recordLayout(columns, text);
  if (!layout || !text) return undefined;
  // The keys' text is ASCII: its length is its bytes.
  const before = text.before.map((t) => t.length);
  const kinds = columns.map((c) => (c.kind === 'string' ? STRING : c.kind === 'object' ? MAP : SCALAR));
  const count = columns.length;
  return {
    // Each byte at most twice (a map's quotes doubled), and per cell two quotes, a `'` and a comma.
    maxBytes: (recordBytes) => 2 * recordBytes + 4 * count + 2,
    write(src, from, to, out, at) {
      const values = layout.exec(src.toString('latin1', from, to));
      if (values === null) return -1;
      let pos = from;
      for (let i = 0; i < count; i++) {
        pos += before[i];
        if (i > 0) out[at++] = COMMA;
        const value = values[i + 1];
        const kind = kinds[i];
        if (kind === STRING) {
          // Undefined: the stored value was null.
          if (value === undefined) {
            pos += 4;
            continue;
          }
          pos += 1;
          const n = value.length;
          const first = n > 0 ? value.charCodeAt(0) : 0;
          const formula = first === 0x3d || first === 0x2b || first === 0x2d || first === 0x40;
          const quoted = formula || value.includes(',');
          if (quoted) {
            out[at++] = QUOTE;
            if (formula) out[at++] = APOSTROPHE;
          }
          at = copy(src, pos, n, out, at);
          pos += n + 1;
          if (quoted) out[at++] = QUOTE;
        } else if (value === 'null') {
          pos += 4;
        } else if (kind === SCALAR || value.length === 2) {
          at = copy(src, pos, value.length, out, at);
          pos += value.length;
        } else {
          out[at++] = QUOTE;
          for (const end = pos + value.length; pos < end; pos++) {
            const byte = src[pos];
            out[at++] = byte;
            if (byte === QUOTE) out[at++] = QUOTE;
          }
          out[at++] = QUOTE;
        }
      }
      out[at++] = 0x0d;
      out[at++] = 0x0a;
      return at;
    },
  };
}

/** Most values are short: a loop beats a native call for them. */
function copy(src: Buffer, from: number, n: number, out: Buffer, at: number): number {
  if (n > 64) return at + src.copy(out, at, from, from + n);
  for (let k = 0; k < n; k++) out[at + k] = src[from + k];
  return at + n;
}
