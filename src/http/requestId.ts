import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { containsSecret } from '../core/scrubSecrets.ts';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * An id logged on every line of a request must not be a secret itself: a caller's id shaped like
 * a card number or a key is refused (the log scrubber would hide it, and so the id, anyway). A
 * UUID can be card-shaped too (twelve digits in a row across its dashes: about 3 in 100), so ours
 * are drawn again until they are not.
 */
function generatedId(): string {
  for (;;) {
    const id = randomUUID();
    if (!containsSecret(id)) return id;
  }
}

/** Keeps a caller's X-Request-Id when it is short, plain and not shaped like a secret, else makes one. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_ID.test(given) && !containsSecret(given) ? given : generatedId();
}
