import type { Transport } from './transport.ts';
import { listQueryString } from './listRequest.ts';

/** The export's closing line: an export without it was cut short. */
interface ClosingLine {
  export: { complete: boolean; count: number };
}

/**
 * Every record of an export (`GET …/export`, NDJSON), one at a time as they arrive: one request,
 * one snapshot. Throws when the stream ends without its closing line or with a count that
 * disagrees with the records received (the export was cut short): start again to be complete.
 */
export async function* exportRecords<T>(transport: Transport, path: string, params: { filter?: object; sort?: string }): AsyncGenerator<T> {
  const response = await transport.openStream(`${path}${listQueryString(params)}`, 'application/x-ndjson');
  const decoder = new TextDecoder();
  let pending = '';
  let received = 0;
  let closing: ClosingLine | undefined;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      pending += decoder.decode(value, { stream: !done });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') continue;
        const parsed = JSON.parse(line) as T | ClosingLine;
        if (closing) throw new Error('The export sent records after its closing line.');
        if (parsed && typeof parsed === 'object' && 'export' in parsed) closing = parsed as ClosingLine;
        else {
          received++;
          yield parsed as T;
        }
      }
      if (done) break;
    }
  } finally {
    // A consumer that stops early closes the connection: the server stops the export.
    await reader.cancel().catch(() => {});
  }
  if (!closing?.export.complete || closing.export.count !== received) {
    throw new Error(`The export was cut short after ${received} records (expected ${response.headers.get('x-total-count') ?? 'more'}); start it again.`);
  }
}
