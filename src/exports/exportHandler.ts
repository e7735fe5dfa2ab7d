import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { issue, mergeFieldErrors, validationProblem, type FieldErrors } from '../core/problem.ts';
import type { Db } from '../db/database.ts';
import { MAX_STRETCH_MS } from '../db/nodeSqliteDialect.ts';
import { openSnapshot, type SnapshotReader } from '../db/snapshotReader.ts';
import type { ReadRouting } from '../db/readReplicas.ts';
import { tenantRead, readListQuery, type RawListQuery, listSchemaFieldErrors } from '../lists/index.ts';
import { csvColumnsOf } from '../representations/csvColumns.ts';
import { csvHeader } from './csvText.ts';
import { CSV_CHUNK_BYTES, csvRowsOfNdjson } from './csvRowsOfNdjson.ts';
import { exportMediaType, notAcceptable } from './exportFormat.ts';
import type { ExportSlots } from './exportSlots.ts';
import type { ListEndpoint, ListSpec } from '../lists/index.ts';
import { exportStatements } from './exportStatements.ts';
import { YoungGenerationSweep } from './youngGenerationSweep.ts';
import type { SchemaError } from '../core/queryErrors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on export routes (exportRouteConfig): the OpenAPI document documents their filters like a list's, and their compressor works in larger pieces (http/entityTagsAndCompression.ts). */
    exportSpec?: ListSpec;
  }
}

/** What exports may use: a connection of their own each, so they are bounded per key. */
export interface ExportContext {
  db: Db;
  slots: ExportSlots;
  /** PostgreSQL `statement_timeout` of an export's count (ms; its COPY has none); 0: none. */
  statementTimeoutMs: number;
  /** Read replicas (db/readReplicas.ts): where a tenant's export runs; `db` alone when absent. */
  reads?: ReadRouting;
}

/** An export route's config: its spec (documentation) and how its query errors are worded. */
export function exportRouteConfig(spec: ListSpec) {
  return {
    exportSpec: spec,
    queryFieldErrors: (errors: readonly SchemaError[], query: unknown) => {
      // Paging given to an export is wrong whatever its value: that is the one thing said of it.
      const { page: _page, per_page: _perPage, ...unpaged } = (query ?? {}) as Record<string, unknown>;
      return mergeFieldErrors(listSchemaFieldErrors(spec, undefined, errors, unpaged), pagingErrors((query ?? {}) as Record<string, unknown>));
    },
  };
}

/** An export sends every matching record: paging parameters are a mistake. */
function pagingErrors(raw: { page?: unknown; per_page?: unknown }): FieldErrors {
  const paged = (['page', 'per_page'] as const).filter((name) => raw[name] !== undefined);
  return Object.fromEntries(paged.map((name) => [name, [issue('paging_not_accepted', 'is not accepted by an export: it sends every matching record')]]));
}

/**
 * A CSV export's lines: the header row, then one flat row per record (the count sent goes in a
 * trailer), rendered from the NDJSON bytes of the snapshot reader's `lines`.
 */
async function* csvLines(chunks: AsyncGenerator<Buffer>, schema: TSchema, sent: { count: number }, finish: () => Promise<void>) {
  const columns = csvColumnsOf(schema);
  try {
    yield csvHeader(columns);
    yield* csvRowsOfNdjson(chunks, columns, sent);
  } finally {
    await finish();
  }
}

/**
 * NDJSON as the snapshot reader's `lines` hands it over (PostgreSQL's COPY bytes; SQLite's texts
 * encoded straight into chunks): the stored resource texts, a newline after each, are the
 * export's lines as they are, never parsed or joined; only the newlines are counted, for the
 * closing line.
 */
async function* copiedNdjsonLines(chunks: AsyncGenerator<Buffer>, sent: { count: number }, finish: () => Promise<void>) {
  try {
    let stretchStarted = performance.now();
    const sweep = new YoungGenerationSweep();
    for await (const chunk of chunks) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) sent.count++;
      yield chunk;
      sweep.add(chunk.length);
      if (performance.now() - stretchStarted > MAX_STRETCH_MS) {
        await nextTurn();
        stretchStarted = performance.now();
      }
    }
    yield `${JSON.stringify({ export: { complete: true, count: sent.count } })}\n`;
  } finally {
    await finish();
  }
}

/**
 * The handler of `…/export`: the list's filters and sort (same validation), every matching
 * record streamed from one snapshot (the reader's `lines`), as NDJSON or CSV. The socket's
 * back-pressure paces the reading; nothing but a chunk or two is held in memory.
 */
export function exportHandler(endpoint: Omit<ListEndpoint, 'lists' | 'publicUrl'> & { exports: ExportContext; schema: TSchema }) {
  const { table, spec, exports, schema } = endpoint;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.query as RawListQuery & { page?: string; per_page?: string };
    const { query, errors } = readListQuery(spec, raw);
    mergeFieldErrors(errors, pagingErrors(raw));
    if (Object.keys(errors).length > 0) throw validationProblem(errors);
    const type = exportMediaType(request.headers.accept);
    if (!type) throw notAcceptable();
    const scope = await endpoint.scopeOf(request);
    const giveBack = exports.slots.take(request.caller.keyHash);
    let reader: SnapshotReader | undefined;
    let rows: AsyncGenerator<Buffer> | undefined;
    let finished: Promise<void> | undefined;
    // Once, whichever comes first: the export ended, failed, or the client went away (the body
    // is destroyed, possibly before it was ever read): the reading stops, the connection goes
    // back, the slot frees.
    const finish = () =>
      (finished ??= (async () => {
        try {
          await rows?.return(undefined);
          await reader?.close();
        } finally {
          giveBack();
        }
      })());
    try {
      // The snapshot on a replica that has the tenant's every acknowledged write, else the primary.
      const opened = await tenantRead(exports.reads, exports.db, request, reply, async (db) => {
        const snapshot = await openSnapshot(db, { statementTimeoutMs: exports.statementTimeoutMs });
        try {
          // The total as the list takes it: from the counts every write keeps in its transaction when
          // the filters are a counted slice, or a bucketed slice and a range (read in the snapshot, so
          // exactly the rows it holds), else row by row. Counting 1M rows took SQLite's one thread ~1 s, the loop held meanwhile.
          const { total, rows } = await exportStatements(db.kysely, db.dialect, table, scope, query);
          const [{ n }] = await snapshot.all<{ n: number | string }>(total.compile());
          return { snapshot, n, select: rows.compile() };
        } catch (error) {
          await snapshot.close();
          throw error;
        }
      });
      reader = opened.snapshot;
      const { n, select } = opened;
      const sent = { count: 0 };
      const chunks = reader.lines(select);
      rows = chunks;
      const lines = type === 'application/x-ndjson' ? copiedNdjsonLines(chunks, sent, finish) : csvLines(chunks, schema, sent, finish);
      // CSV: two chunks, one rendered while the compressor (or the socket) takes the other.
      // NDJSON's chunks are the reader's own, passed on as they come: 512 KiB ahead was no faster.
      const ahead = type === 'application/x-ndjson' ? 64 * 1024 : 2 * CSV_CHUNK_BYTES;
      const body = Readable.from(lines, { objectMode: false, highWaterMark: ahead });
      body.once('close', () => void finish().catch((error) => request.log.warn({ err: error }, 'closing an export failed')));
      reply
        .header('x-export-snapshot', reader.snapshotAt)
        .header('x-total-count', String(Number(n)))
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${spec.name}.${type === 'text/csv' ? 'csv' : 'ndjson'}"`)
        .type(type === 'text/csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson; charset=utf-8');
      // CSV has no room for a closing record: the count sent is an HTTP trailer (NDJSON has its last line).
      if (type === 'text/csv') reply.trailer('x-export-count', async () => String(sent.count));
      return reply.send(body);
    } catch (error) {
      await finish();
      throw error;
    }
  };
}
