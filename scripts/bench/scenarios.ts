import autocannon from 'autocannon';

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** X-Page-Strategy of one probe request made just before the run (absent on non-list URLs). */
  strategy?: string;
}

/** The q-quantile of sorted samples. */
const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : NaN);

/**
 * Drives one URL with autocannon; every non-2xx counts as an error. One probe request first
 * reads the X-Page-Strategy the server answers that URL with. p50 and p99 come from every 2xx
 * response's own time (autocannon's histogram keeps whole milliseconds, too coarse for ratios
 * of 3 ms latencies), to a hundredth of a millisecond.
 */
export async function hammer(url: string, key: string, seconds: number, connections: number, headers: Record<string, string> = {}): Promise<Measured> {
  const probe = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...headers } });
  await probe.arrayBuffer();
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${key}`, ...headers } }, (error, done) =>
      error ? reject(error) : resolve(done),
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      if (status >= 200 && status < 300) latencies.push(responseTime);
    });
  });
  latencies.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    rps: result.requests.average,
    p50: round(quantile(latencies, 0.5)),
    p99: round(quantile(latencies, 0.99)),
    errors: result.errors + result.timeouts + result.non2xx,
    strategy: probe.headers.get('x-page-strategy') ?? undefined,
  };
}

export interface Walk {
  seconds: number;
  /** The sum of the server's own Server-Timing durations: time spent in the server, not on the wire or in this client. */
  serverSeconds: number;
  rows: number;
  megabytesPerSecond: number;
  pages: number;
  /** How many pages were served by each X-Page-Strategy. */
  strategies: Record<string, number>;
  /** False when the walk stopped at maxPages (or at a failed page) before links.next ran out. */
  complete: boolean;
  /** The first non-2xx answer, which ended the walk. */
  failed?: string;
}

export const serverMsOf = (response: Response) => Number(/dur=([0-9.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? NaN);

/**
 * Follows links.next from the first page to the end (or for at most maxPages pages), one
 * request at a time, as a client walking a list would. A non-2xx page ends the walk and is reported.
 */
export async function walk(origin: string, path: string, key: string, maxPages = Infinity): Promise<Walk> {
  let url: string | null = origin + path;
  let rows = 0;
  let bytes = 0;
  let pages = 0;
  let serverMs = 0;
  let failed: string | undefined;
  const strategies: Record<string, number> = {};
  const started = performance.now();
  while (url && pages < maxPages) {
    const response: Response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (!response.ok) {
      failed = `${url}: ${response.status} ${(await response.text()).slice(0, 200)}`;
      break;
    }
    serverMs += serverMsOf(response);
    const strategy = response.headers.get('x-page-strategy') ?? '(none)';
    strategies[strategy] = (strategies[strategy] ?? 0) + 1;
    const text = await response.text();
    bytes += text.length;
    const body = JSON.parse(text) as { data: unknown[]; links: { next: string | null } };
    rows += body.data.length;
    pages += 1;
    url = body.links.next;
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, serverSeconds: serverMs / 1000, rows, pages, megabytesPerSecond: bytes / 1e6 / seconds, strategies, complete: url === null && !failed, failed };
}

/** Median Server-Timing of a few sequential requests to one URL (the server's time alone, no concurrency). */
export async function serverTimeAlone(url: string, key: string, times = 5): Promise<number> {
  const durations: number[] = [];
  for (let i = 0; i < times; i++) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    durations.push(serverMsOf(response));
  }
  return durations.sort((a, b) => a - b)[Math.floor(times / 2)];
}

/** Fetches one page (to warm a walker's boundary, or to read ids). */
export async function getJson(url: string, key: string): Promise<any> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}
