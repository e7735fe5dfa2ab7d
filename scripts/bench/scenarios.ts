import autocannon from 'autocannon';

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Drives one URL with autocannon; every non-2xx counts as an error. */
export async function hammer(url: string, key: string, seconds: number, connections: number, headers: Record<string, string> = {}): Promise<Measured> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

export interface Walk {
  seconds: number;
  /** The sum of the server's own Server-Timing durations: time spent in the server, not on the wire or in this client. */
  serverSeconds: number;
  rows: number;
  megabytesPerSecond: number;
  pages: number;
}

/** Follows links.next from page 1 to the end, one request at a time, as a client walking a list would. */
export async function walk(origin: string, path: string, key: string): Promise<Walk> {
  let url: string | null = origin + path;
  let rows = 0;
  let bytes = 0;
  let pages = 0;
  let serverMs = 0;
  const started = performance.now();
  while (url) {
    const response: Response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    serverMs += Number(/dur=([0-9.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? NaN);
    const text = await response.text();
    bytes += text.length;
    const body = JSON.parse(text) as { data: unknown[]; links: { next: string | null } };
    rows += body.data.length;
    pages += 1;
    url = body.links.next;
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, serverSeconds: serverMs / 1000, rows, pages, megabytesPerSecond: bytes / 1e6 / seconds };
}

/** Fetches one page (to warm a walker's boundary, or to read ids). */
export async function getJson(url: string, key: string): Promise<any> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}
