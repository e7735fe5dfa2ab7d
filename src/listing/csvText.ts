import type { CsvColumn } from './csvColumns.ts';

/** A cell a spreadsheet would run as a formula (OWASP "CSV injection"): these first characters. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One cell, RFC 4180 quoted when it holds a quote, comma or line break. A cell that a
 * spreadsheet would read as a formula gets a leading `'` and is quoted, as OWASP recommends; a
 * negative amount (`-5`) is a number and stays as it is.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) return `"'${text.replaceAll('"', '""')}"`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(columns: CsvColumn[]): string {
  return `${columns.map((c) => csvCell(c.name)).join(',')}\r\n`;
}

/** One record (its stored JSON text) as a CSV line, CRLF-terminated. */
export function csvLine(columns: CsvColumn[], resource: string): string {
  const record = JSON.parse(resource) as Record<string, unknown>;
  const cells = columns.map((c) => {
    let value: unknown = record;
    for (const key of c.path) value = (value as Record<string, unknown> | null | undefined)?.[key];
    return csvCell(value);
  });
  return `${cells.join(',')}\r\n`;
}
