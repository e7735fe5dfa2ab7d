import { DatabaseNotAnswering } from './databaseErrors.ts';

export interface SilenceBound {
  /** How long the next bytes may take before the database is asked whether it still answers. */
  quietMs: number;
  /** Whether it does (databaseAnswers.ts). */
  stillAnswering(): Promise<boolean>;
  /** Ends the stream's connection with this error (giveUpConnection): the stream then fails with it. */
  giveUp(error: Error): void;
}

/**
 * `chunks` (a COPY's), with the wait for each next chunk bounded: a COPY has no statement limit
 * (its reader paces it), and nothing else would end one whose server went silent behind a
 * pooler or a proxy, which still acknowledge TCP (keepalive sees nothing wrong). Only the wait
 * counts, never the reader's own pace. A filter whose matches lie far apart is a silence too: so
 * after `quietMs` the database is asked; if it answers, the wait goes on.
 */
export async function* boundSilence(chunks: AsyncIterable<Buffer>, bound: SilenceBound): AsyncGenerator<Buffer> {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      let waiting = true;
      let timer: NodeJS.Timeout | undefined;
      const watch = () => {
        timer = setTimeout(async () => {
          const answering = await bound.stillAnswering();
          if (!waiting) return;
          if (answering) watch();
          else bound.giveUp(new DatabaseNotAnswering(bound.quietMs));
        }, bound.quietMs);
      };
      watch();
      let next: IteratorResult<Buffer>;
      try {
        next = await iterator.next();
      } finally {
        waiting = false;
        clearTimeout(timer);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}
