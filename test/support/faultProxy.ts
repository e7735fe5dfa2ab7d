import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
}

/** What the proxy does with the n-th request (1-based): pass it on, answer it itself, or pass it on and lose the answer. */
export type Fault = 'forward' | 'forward-then-503' | { status: number; headers?: Record<string, string>; body?: unknown };

export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A reverse proxy in front of a real server that injects the failures a client must survive:
 * 429/503 answers with Retry-After, and answers lost after the server has acted.
 */
export async function startFaultProxy(upstream: string, fault: (n: number, request: ProxiedRequest) => Fault): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  const server = createServer(async (request, response) => {
    const seen = { method: request.method!, url: request.url!, idempotencyKey: request.headers['idempotency-key'] as string | undefined };
    requests.push(seen);
    const body = await bodyOf(request);
    const action = fault(requests.length, seen);
    if (typeof action === 'object') {
      response.writeHead(action.status, { 'content-type': 'application/problem+json', ...action.headers });
      response.end(JSON.stringify(action.body ?? { type: 'about:blank', title: 'Injected', status: action.status }));
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<
      string,
      string
    >;
    const answer = await fetch(`${upstream}${request.url}`, { method: request.method, headers, body: body.length ? body : undefined });
    const text = await answer.text();
    if (action === 'forward-then-503') {
      response.writeHead(503, { 'content-type': 'application/problem+json' });
      response.end(JSON.stringify({ type: 'about:blank', title: 'Lost on the way back', status: 503 }));
      return;
    }
    const passOn: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name)) passOn[name] = value;
    });
    response.writeHead(answer.status, passOn);
    response.end(text);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
