import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  type: string;
  body: { id: string; type: string; created_at: string; data: { id: string; status: string } };
  /** Which of the receiver's secrets verified it. */
  verifiedWith: string[];
  /** The webhook-* headers as sent. */
  headers: Record<string, string>;
}

/**
 * A real HTTP receiver on loopback that verifies every delivery with the `standardwebhooks`
 * package, as a merchant would; how it answers is set by `answer` (status, delay in ms).
 */
export async function startReceiver() {
  const received: Received[] = [];
  const rejected: string[] = [];
  const secrets: string[] = [];
  /** The `webhook-id` of every request, answered 2xx or not, as they arrived. */
  const attempted: string[] = [];
  /** The most requests it was answering at once. */
  const concurrency = { now: 0, most: 0 };
  let answer: (webhookId: string) => { status: number; delayMs?: number } = () => ({ status: 204 });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    const webhookId = String(request.headers['webhook-id']);
    attempted.push(webhookId);
    concurrency.most = Math.max(concurrency.most, ++concurrency.now);
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', async () => {
      const { status, delayMs } = answer(webhookId);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      concurrency.now--;
      if (status >= 200 && status < 300) {
        const body = Buffer.concat(chunks).toString('utf8');
        const verifiedWith = secrets.filter((s) => verifies(s, body, request.headers));
        if (verifiedWith.length === 0) rejected.push(body);
        else {
          const headers = Object.fromEntries(Object.entries(request.headers).filter(([k]) => k.startsWith('webhook-'))) as Record<string, string>;
          received.push({ id: String(request.headers['webhook-id']), type: JSON.parse(body).type, body: JSON.parse(body), verifiedWith, headers });
        }
      }
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    rejected,
    secrets,
    attempted,
    concurrency,
    answerWith(next: (webhookId: string) => { status: number; delayMs?: number }) {
      answer = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function verifies(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `check` holds (polling), failing after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
