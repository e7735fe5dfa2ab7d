import { createHash, randomBytes } from 'node:crypto';

export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Keys carry a recognisable prefix so they can be found and redacted in logs and leaks. */
export const KEY_PREFIX = 'apk_';

export function generateApiKey(): { key: string; hash: string; displayPrefix: string } {
  const key = KEY_PREFIX + randomBytes(30).toString('base64url');
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, 10) };
}

/**
 * Keys are 240 random bits, so an unsalted SHA-256 is enough to make the stored value useless
 * to a thief; lookups compare hashes, never the key itself.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function parseScopes(text: string): Scope[] | undefined {
  const scopes = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0 || !scopes.every((s) => (SCOPES as readonly string[]).includes(s))) return undefined;
  return [...new Set(scopes)] as Scope[];
}
