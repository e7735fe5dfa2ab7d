import { describe, expect, it } from 'vitest';
import { exportMediaType } from '../../src/exports/exportFormat.ts';

describe('the export format Accept asks for', () => {
  it.each([
    [undefined, 'application/x-ndjson'],
    ['*/*', 'application/x-ndjson'],
    ['text/csv', 'text/csv'],
    ['text/*', 'text/csv'],
    ['application/x-ndjson, text/csv', 'application/x-ndjson'],
    ['text/csv;q=0.9, application/x-ndjson;q=0.5', 'text/csv'],
    ['*/*;q=0.1, text/csv', 'text/csv'],
    ['application/json', undefined],
    ['text/csv;q=0', undefined],
    ['application/json, text/html;q=0.9', undefined],
  ])('%s → %s', (accept, type) => {
    expect(exportMediaType(accept)).toBe(type);
  });
});
