import { createHash } from 'node:crypto';

/*
 * PostgreSQL: statements flagged `prepared` (driverFlags.ts) are parsed and planned once per
 * connection, as named prepared statements, by the Kysely connection (preparingPostgresDriver.ts)
 * and the row streamer (streamRowTexts.ts). Here: their names, and how many a connection keeps.
 */

/** Texts whose names are remembered; past this many the memory starts afresh (a name then costs a hash again). */
const MAX_NAMES = 5000;
/**
 * Statements one connection keeps prepared, at most. Each is a plan in that server process's
 * memory and its text in the driver's, for as long as the connection lives, and a busy pool's
 * connections live for good: past this many, a new text runs unnamed and the connection is
 * closed when released (the pool opens a fresh one).
 */
export const MAX_PREPARED_PER_CONNECTION = 200;

/** By text: its name, and the first copy of the text, which every connection keeps instead of its own. */
const names = new Map<string, { name: string; text: string }>();
const preparedOn = new WeakMap<object, Set<string>>();

/** The name a prepared statement goes by on every connection (the same text, the same name). */
function namedText(text: string): { name: string; text: string } {
  let named = names.get(text);
  if (!named) {
    named = { name: `k${createHash('sha1').update(text).digest('hex').slice(0, 32)}`, text };
    if (names.size >= MAX_NAMES) names.clear();
    names.set(text, named);
  }
  return named;
}

/**
 * How to send a statement flagged `prepared` on `client`: by name (with the one shared copy of its text),
 * or unnamed once the connection has prepared its MAX_PREPARED_PER_CONNECTION.
 */
export function preparedQueryOn(client: object, text: string, values: unknown[] | undefined): { name?: string; text: string; values?: unknown[] } {
  const named = namedText(text);
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  if (!prepared.has(named.name)) {
    if (prepared.size >= MAX_PREPARED_PER_CONNECTION) return { text, values };
    prepared.add(named.name);
  }
  return { name: named.name, text: named.text, values };
}

/** Whether `client` has prepared all it may: it is closed on release rather than kept. */
export function preparedFull(client: object): boolean {
  return (preparedOn.get(client)?.size ?? 0) >= MAX_PREPARED_PER_CONNECTION;
}
