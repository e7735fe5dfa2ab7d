import type { CsvColumn } from '../representations/csvColumns.ts';

/** A cell a spreadsheet would run as a formula (OWASP "CSV injection"): these first characters. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;
/** Either of the two: most cells (ids, times, statuses) match neither, and are sent after this one test. */
const NEEDS_CARE = /^[=+\-@\t\r]|[",\r\n]/;

/**
 * One cell, RFC 4180 quoted when it holds a quote, comma or line break. A cell that a
 * spreadsheet would read as a formula gets a leading `'` and is quoted, as OWASP recommends; a
 * negative amount (`-5`) is a number and stays as it is.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (!NEEDS_CARE.test(text)) return text;
  if (FORMULA_START.test(text)) return `"'${text.replaceAll('"', '""')}"`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(columns: CsvColumn[]): string {
  return `${columns.map((c) => csvCell(c.name)).join(',')}\r\n`;
}

/** One record (its stored JSON text) as a CSV line, CRLF-terminated. */
export function csvLine(columns: CsvColumn[], resource: string): string {
  const record = JSON.parse(resource) as Record<string, unknown>;
  // One string built as it goes: an export renders a million of these (no array of cells, no join).
  let line = '';
  for (let i = 0; i < columns.length; i++) {
    const path = columns[i].path;
    let value: unknown = record[path[0]];
    for (let depth = 1; depth < path.length; depth++) value = (value as Record<string, unknown> | null | undefined)?.[path[depth]];
    line += i === 0 ? csvCell(value) : `,${csvCell(value)}`;
  }
  return `${line}\r\n`;
}
