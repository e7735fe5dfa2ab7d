import { ApiProblem, type ProblemBody } from './apiProblem.ts';
import { RETRYABLE_STATUSES, RETRYABLE_TYPES } from './retryRules.ts';

export interface RetryOptions {
  /** Total attempts per call, the first included (default 4). */
  attempts?: number;
  /** First backoff when the server gives no Retry-After, doubled per attempt, with jitter (default 250 ms). */
  baseDelayMs?: number;
  /** Upper bound of any single wait, Retry-After included (default 30 s). */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /** Origin of the API, e.g. `https://api.example.com` (paths are `/v3/...`). */
  baseUrl: string;
  /** An API key (`apk_...`). */
  apiKey: string;
  retry?: RetryOptions;
  /** Where requests go; the global fetch by default. */
  fetch?: typeof fetch;
  /** How waits happen (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
  /** Makes the Idempotency-Key of a POST that did not bring one (random UUID by default). */
  idempotencyKey?: () => string;
  /** How long a call may take, its retries and their waits included (default 30 000 ms; 0: no limit). */
  timeoutMs?: number;
}

export interface CallOptions {
  /** Your own Idempotency-Key for a POST (one is generated otherwise); retries reuse it. */
  idempotencyKey?: string;
  /** This call's time limit, instead of the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Cancels the call (and its retries) when aborted: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface Response<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** HTTP with the API's conventions: bearer key, JSON, idempotent POSTs, bounded retries. */
export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly newKey: () => string;
  private readonly timeoutMs: number;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.attempts = Math.max(1, options.retry?.attempts ?? 4);
    this.baseDelayMs = options.retry?.baseDelayMs ?? 250;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
    // Web Crypto: the same call in browsers and in Node ≥ 20, no Node module imported.
    this.newKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The signal that ends a call: the caller's, the time limit's, whichever comes first. */
  private signalFor(options: CallOptions): AbortSignal | undefined {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const signals = [...(options.signal ? [options.signal] : []), ...(timeoutMs > 0 ? [AbortSignal.timeout(timeoutMs)] : [])];
    return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  }

  /** Waits, unless the call is ended first. */
  private wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return this.sleep(ms);
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const stop = () => reject(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      this.sleep(ms).then(() => {
        signal.removeEventListener('abort', stop);
        resolve();
      }, reject);
    });
  }

  /** `path` is `/v3/...` or an absolute URL the API gave (a page link). */
  async request<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Response<T>> {
    const url = /^https?:\/\//.test(path) ? path : `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // One key per call, the same on every retry: the server then replays instead of acting twice.
    if (method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? this.newKey();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const signal = this.signalFor(options);

    for (let attempt = 1; ; attempt++) {
      let response: globalThis.Response;
      try {
        response = await this.fetch(url, { method, headers, body: payload, signal });
      } catch (error) {
        // Cancelled or out of time: that is the answer, not something to retry.
        if (signal?.aborted) throw signal.reason;
        // No answer at all (connection refused or reset): safe to retry, POSTs carry their key.
        if (attempt >= this.attempts) throw error;
        await this.wait(this.backoff(attempt), signal);
        continue;
      }
      const text = await response.text();
      const parsed = response.ok ? (text ? JSON.parse(text) : undefined) : parseLeniently(text);
      if (response.ok) return { status: response.status, body: parsed as T, headers: response.headers };
      const problem = toProblem(response.status, parsed);
      // Rate limited, unavailable, or a duplicate still being processed (retryRules.ts, from the server's problem catalog).
      const retryable = RETRYABLE_STATUSES.has(response.status) || RETRYABLE_TYPES.has(problem.type);
      if (!retryable || attempt >= this.attempts) throw new ApiProblem(problem, response.headers.get('x-request-id') ?? undefined);
      await this.wait(this.delay(response.headers.get('retry-after'), attempt), signal);
    }
  }

  /**
   * A GET whose body the caller reads as a stream (exports): the response once its status is
   * fine; a problem (after the same retries as request()) otherwise.
   */
  async openStream(path: string, accept: string): Promise<globalThis.Response> {
    const headers = { authorization: `Bearer ${this.apiKey}`, accept };
    for (let attempt = 1; ; attempt++) {
      const response = await this.fetch(`${this.baseUrl}${path}`, { headers });
      if (response.ok) return response;
      const problem = toProblem(response.status, parseLeniently(await response.text()));
      const retryable = RETRYABLE_STATUSES.has(response.status) || RETRYABLE_TYPES.has(problem.type);
      if (!retryable || attempt >= this.attempts) throw new ApiProblem(problem, response.headers.get('x-request-id') ?? undefined);
      await this.sleep(this.delay(response.headers.get('retry-after'), attempt));
    }
  }

  /** Retry-After (seconds or an HTTP-date) when given, else exponential backoff; capped. */
  private delay(retryAfter: string | null, attempt: number): number {
    if (retryAfter !== null) {
      const seconds = /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - Date.now();
      if (Number.isFinite(seconds)) return Math.min(Math.max(seconds, 0), this.maxDelayMs);
    }
    return this.backoff(attempt);
  }

  private backoff(attempt: number): number {
    const exponential = this.baseDelayMs * 2 ** (attempt - 1);
    return Math.min(exponential / 2 + Math.random() * (exponential / 2), this.maxDelayMs);
  }
}

/** An error body may come from a proxy in front of the API: anything but JSON means no problem body. */
function parseLeniently(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toProblem(status: number, body: unknown): ProblemBody {
  if (body && typeof body === 'object' && 'title' in body) return body as ProblemBody;
  return { type: 'about:blank', title: `HTTP ${status}`, status };
}
