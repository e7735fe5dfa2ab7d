import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** Shaped like a secret (an API key, or a card number's run of digits): never logged, so never an id. */
const SECRET_LIKE = /apk_|[0-9]{12}/;

/** Keeps a caller's X-Request-Id when it is short and plain (safe to log and echo), else makes one. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_ID.test(given) && !SECRET_LIKE.test(given) ? given : randomUUID();
}
