import { createHash } from 'node:crypto';
import { TextBoundedMap } from './textBoundedMap.ts';

/*
 * PostgreSQL: statements flagged `prepared` (driverFlags.ts) are parsed and planned once per
 * connection, as named prepared statements, by the Kysely connection (preparingPostgresDriver.ts)
 * and the row streamer (streamRowTexts.ts). Here: their names, and how many a connection keeps.
 */

/** Texts whose names are remembered; past this many, or this much text, the oldest are forgotten (a name then costs a hash again). */
const MAX_NAMES = 5000;
const MAX_NAMED_CHARS = 4_000_000;
/**
 * Statements one connection keeps prepared, at most. Each is a plan in that server process's
 * memory and its text in the driver's, for as long as the connection lives, and a busy pool's
 * connections live for good: past this many, a new text runs unnamed and the connection is
 * closed when released (the pool opens a fresh one).
 */
export const MAX_PREPARED_PER_CONNECTION = 200;
/**
 * Characters of text one connection keeps prepared, at most (~1 MB): its driver keeps each text,
 * and a statement's plan grows with it; 200 ranged lists' deep pages would be ~4 MB a connection.
 */
export const MAX_PREPARED_CHARS_PER_CONNECTION = 1_000_000;

/** By text: its name, and the first copy of the text, which every connection keeps instead of its own. */
const names = new TextBoundedMap<{ name: string; text: string }>(MAX_NAMES, MAX_NAMED_CHARS);
/** Per connection: the names it has prepared, and the characters of their texts. */
const preparedOn = new WeakMap<object, { names: Set<string>; chars: number }>();

/** The name a prepared statement goes by on every connection (the same text, the same name). */
function namedText(text: string): { name: string; text: string } {
  let named = names.get(text);
  if (!named) {
    // The text itself, not a copy: a template's is kept flat already (statementTemplates.ts), and
    // hashing flattens one built per request in place (heap snapshots of the soak).
    named = { name: `k${createHash('sha1').update(text).digest('hex').slice(0, 32)}`, text };
    names.set(text, named, text.length);
  }
  return named;
}

/**
 * How to send a statement flagged `prepared` on `client`: by name (with the one shared copy of its text),
 * or unnamed once the connection has prepared its MAX_PREPARED_PER_CONNECTION statements or
 * MAX_PREPARED_CHARS_PER_CONNECTION of text.
 */
export function preparedQueryOn(client: object, text: string, values: unknown[] | undefined): { name?: string; text: string; values?: unknown[] } {
  const named = namedText(text);
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = { names: new Set(), chars: 0 }));
  if (!prepared.names.has(named.name)) {
    if (isFull(prepared) || prepared.chars + text.length > MAX_PREPARED_CHARS_PER_CONNECTION) {
      prepared.chars = MAX_PREPARED_CHARS_PER_CONNECTION; // full: closed on release
      return { text, values };
    }
    prepared.names.add(named.name);
    prepared.chars += text.length;
  }
  return { name: named.name, text: named.text, values };
}

function isFull(prepared: { names: Set<string>; chars: number }): boolean {
  return prepared.names.size >= MAX_PREPARED_PER_CONNECTION || prepared.chars >= MAX_PREPARED_CHARS_PER_CONNECTION;
}

/** Whether `client` has prepared all it may: it is closed on release rather than kept. */
export function preparedFull(client: object): boolean {
  const prepared = preparedOn.get(client);
  return prepared !== undefined && isFull(prepared);
}
