import { Type, type TSchema } from 'typebox';
import { csvColumnsOf } from '../representations/csvColumns.ts';

const HEADERS = {
  'x-export-snapshot': Type.String({ format: 'date-time', description: 'When the snapshot the export reads was taken' }),
  'x-total-count': Type.String({ description: 'How many records match, counted in that snapshot: the export sends exactly these' }),
};

/**
 * The 200 of an export, for the documentation: NDJSON (each line a record as the list renders
 * it, then `{"export":{"complete":true,"count":N}}`) or CSV with the listed columns.
 */
export function exportResponses(resource: TSchema) {
  const columns = csvColumnsOf(resource).map((c) => c.name);
  return {
    200: {
      description: 'Every matching record, in the list’s order',
      headers: HEADERS,
      content: {
        'application/x-ndjson': {
          schema: Type.String({
            description: 'One record per line, exactly as the list renders it; the last line is `{"export":{"complete":true,"count":N}}`, N the records sent.',
          }),
        },
        'text/csv': {
          schema: Type.String({
            description: `RFC 4180, a header row, CRLF line ends; the columns: ${columns.join(', ')}. Cells a spreadsheet would read as a formula start with \`'\`. The HTTP trailer X-Export-Count says how many records were sent.`,
          }),
        },
      },
    },
  };
}
