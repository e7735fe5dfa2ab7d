import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_STRETCH_MS } from '../db/nodeSqliteDialect.ts';
import type { CsvColumn } from './csvColumns.ts';
import { csvLineRenderer } from './csvLineRenderer.ts';

/** CSV characters per text handed on (some 70 records). */
const CHUNK_CHARS = 16 * 1024;

/**
 * CSV rows (no header) of records given as NDJSON bytes, in chunks cut anywhere (PostgreSQL's
 * COPY hands over the socket's chunks, which may split a record or a character): each chunk is
 * read up to its last newline, the bytes after it wait for the next. Every string and object
 * made for a record is dropped before the next chunk, so none lives long enough to be promoted
 * out of the young generation. `sent.count` counts the rows handed on.
 */
export async function* csvRowsOfNdjson(chunks: AsyncIterable<Buffer>, columns: CsvColumn[], sent: { count: number }): AsyncGenerator<string> {
  // Back-pressure alone does not let other requests in: on loopback a socket takes a chunk at
  // once, and the next chunk is at hand, so rendering would go on without a turn of the event
  // loop (CSV held it 100+ ms at a time). After a stretch of MAX_STRETCH_MS it takes a turn.
  let stretchStarted = performance.now();
  const csvLine = csvLineRenderer(columns);
  let rest: Buffer | undefined;
  for await (const received of chunks) {
    const chunk = rest ? Buffer.concat([rest, received]) : received;
    const end = chunk.lastIndexOf(10);
    rest = end + 1 < chunk.length ? chunk.subarray(end + 1) : undefined;
    if (end === -1) continue;
    // Record by record from the bytes, handed on in small texts: what is alive at a scavenge is a
    // record and a 16K-character text, never a whole chunk's string (64-195 KB) with its slices.
    // Measured over 1M payments on PostgreSQL: +104 to +183 MB over idle the other way, +50 to
    // +54 MB this way, identity or gzip.
    let text = '';
    for (let from = 0; from <= end; ) {
      // Always found, at `end` at the latest.
      const to = chunk.indexOf(10, from);
      text += csvLine(chunk.toString('utf8', from, to));
      sent.count++;
      from = to + 1;
      if (text.length >= CHUNK_CHARS) {
        yield text;
        text = '';
        if (performance.now() - stretchStarted > MAX_STRETCH_MS) {
          await nextTurn();
          stretchStarted = performance.now();
        }
      }
    }
    if (text.length > 0) yield text;
  }
  if (rest) throw new Error("a record's bytes ended without a newline");
}
