import { connect } from 'node:net';

export interface RawResponse {
  /** Everything the server wrote, as text. */
  text: string;
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
}

/** Status line, headers (lower-cased names) and body of the first final (not 1xx) response in raw HTTP/1.1 text. */
export function parseRawResponse(text: string): RawResponse {
  const all = text;
  while (/^HTTP\/1\.[01] 1[0-9]{2} /.test(text) && text.includes('\r\n\r\n')) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = /^HTTP\/1\.[01] ([0-9]{3})/.exec(statusLine)?.[1];
  return { text: all, status: status === undefined ? undefined : Number(status), headers, body: split === -1 ? '' : text.slice(split + 4) };
}

/** Whether a whole response with a Content-Length has arrived (a kept-alive connection need not be waited out). */
function complete(response: RawResponse): boolean {
  const length = response.headers['content-length'];
  return response.status !== undefined && length !== undefined && Buffer.byteLength(response.body) >= Number(length);
}

/**
 * Writes bytes to a server exactly as given (no client library normalising them) and collects
 * what comes back until a whole response has arrived, the server closes the connection, or
 * `idleMs` pass without data.
 */
export function sendRaw(port: number, request: string | Buffer, idleMs = 1500): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    let timer = setTimeout(() => socket.destroy(), idleMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      clearTimeout(timer);
      if (complete(parseRawResponse(Buffer.concat(chunks).toString('utf8')))) socket.destroy();
      else timer = setTimeout(() => socket.destroy(), idleMs);
    });
    const done = () => {
      clearTimeout(timer);
      resolve(parseRawResponse(Buffer.concat(chunks).toString('utf8')));
    };
    socket.on('close', done);
    socket.on('error', () => {});
  });
}
