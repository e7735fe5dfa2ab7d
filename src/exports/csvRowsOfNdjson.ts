import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_STRETCH_MS } from '../db/nodeSqliteDialect.ts';
import type { CsvColumn } from '../representations/csvColumns.ts';
import { csvRecordWriter } from './csvRecordWriter.ts';
import { csvLine } from './csvText.ts';

/**
 * Bytes of CSV per Buffer handed on (some 1,100 records). A compressed export's compressor takes
 * one chunk per job on the thread pool: 64 KiB jobs left zlib waiting on the event loop between
 * them (see EXPORT_CHUNK_SIZE in http/entityTagsAndCompression.ts for the figures).
 */
export const CSV_CHUNK_BYTES = 256 * 1024;

/**
 * CSV rows (no header) of records given as NDJSON bytes, in chunks cut anywhere (PostgreSQL's
 * COPY hands over the socket's chunks, which may split a record or a character): each chunk is
 * read up to its last newline, the bytes after it wait for the next. Every string made for a
 * record is dropped at once, so none lives long enough to be promoted out of the young
 * generation. `sent.count` counts the rows handed on.
 */
export async function* csvRowsOfNdjson(chunks: AsyncIterable<Buffer>, columns: CsvColumn[], sent: { count: number }): AsyncGenerator<Buffer> {
  // Back-pressure alone does not let other requests in: on loopback a socket takes a chunk at
  // once, and the next chunk is at hand, so rendering would go on without a turn of the event
  // loop (CSV held it 100+ ms at a time). After a stretch of MAX_STRETCH_MS it takes a turn.
  let stretchStarted = performance.now();
  const quick = csvRecordWriter(columns);
  const lines = new LineBuffers();
  let rest: Buffer | undefined;
  for await (const received of chunks) {
    const chunk = rest ? Buffer.concat([rest, received]) : received;
    const end = chunk.lastIndexOf(10);
    rest = end + 1 < chunk.length ? chunk.subarray(end + 1) : undefined;
    if (end === -1) continue;
    for (let from = 0; from <= end; ) {
      // Always found, at `end` at the latest.
      const to = chunk.indexOf(10, from);
      // The quick way copies the record's own bytes; any other record is parsed by csvLine.
      let written = false;
      if (quick) {
        const full = lines.reserve(quick.maxBytes(to - from));
        if (full) yield full;
        written = lines.wrote(quick.write(chunk, from, to, lines.out, lines.used));
      }
      if (!written) {
        const line = csvLine(columns, chunk.toString('utf8', from, to));
        // At most 3 bytes a UTF-16 unit.
        const full = lines.reserve(3 * line.length);
        if (full) yield full;
        lines.wrote(lines.used + lines.out.write(line, lines.used));
      }
      sent.count++;
      from = to + 1;
      if ((sent.count & 127) === 0 && performance.now() - stretchStarted > MAX_STRETCH_MS) {
        await nextTurn();
        stretchStarted = performance.now();
      }
    }
  }
  const last = lines.take();
  if (last) yield last;
  if (rest) throw new Error("a record's bytes ended without a newline");
}

/**
 * Lines written as UTF-8 straight into 256 KiB Buffers, each handed on when the next line might
 * not fit: no joined string to flatten and encode again.
 */
class LineBuffers {
  out = Buffer.allocUnsafe(CSV_CHUNK_BYTES);
  used = 0;

  /** Room for `bytes` more; the filled part of the Buffer given up for it, if one was. */
  reserve(bytes: number): Buffer | undefined {
    if (this.used + bytes <= this.out.length) return undefined;
    const full = this.take();
    this.out = Buffer.allocUnsafe(Math.max(CSV_CHUNK_BYTES, bytes));
    return full;
  }

  /** The filled part, if any, given up: what comes next starts a new Buffer's worth. */
  take(): Buffer | undefined {
    const full = this.used > 0 ? this.out.subarray(0, this.used) : undefined;
    this.used = 0;
    return full;
  }

  /** Takes a writer's end (-1: it wrote nothing); whether it wrote. */
  wrote(end: number): boolean {
    if (end === -1) return false;
    this.used = end;
    return true;
  }
}
