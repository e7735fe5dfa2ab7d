import { serverAnswer } from '../db/databaseErrors.ts';

/** sysexits.h: a service unavailable; a remote error in protocol; a configuration error. */
const EX_UNAVAILABLE = 69;
const EX_PROTOCOL = 76;
const EX_CONFIG = 78;

/**
 * A pooler's refusals of what the connection asked for (PgBouncer sends them as 08P01): trying
 * again sends the same request and gets the same answer. Its other 08P01 answers ("cannot connect
 * to server", "server login has been failing") mean the server behind it is not up yet: waited for.
 */
const FINAL_PROTOCOL_REFUSAL = /unsupported startup parameter|no such (database|user)|unsupported pkt/i;

/** True when the server answered with a refusal that waiting would not change. */
export function isFinalRefusal(error: unknown): boolean {
  const answer = serverAnswer(error);
  return answer !== undefined && answer.code === '08P01' && FINAL_PROTOCOL_REFUSAL.test(answer.message);
}

/** What to do about a server's answer, by its SQLSTATE (and, for a pooler's, its words). */
function advice(code: string, message: string): { todo: string; exitCode: number } {
  if (/unsupported startup parameter/i.test(message)) {
    return {
      todo: 'a connection pooler (PgBouncer) refuses session settings sent at connect: add the parameter to its ignore_startup_parameters, or point DATABASE_URL at PostgreSQL itself',
      exitCode: EX_CONFIG,
    };
  }
  if (code === '53300' || code === '53400') {
    return {
      todo: 'it has no connection to spare: raise its max_connections (or the role’s CONNECTION LIMIT), or lower PG_POOL_MAX × WORKERS × instances; DB_CONNECT_RETRY_S sets how long to wait at start',
      exitCode: EX_UNAVAILABLE,
    };
  }
  if (code.startsWith('57P')) {
    return { todo: 'it is starting, shutting down or in recovery: wait for it (DB_CONNECT_RETRY_S sets how long), or check its log', exitCode: EX_UNAVAILABLE };
  }
  if (code === '08P01') {
    return {
      todo: 'check DATABASE_URL (host, port, database and user as the pooler or server knows them) and the pooler’s or server’s log',
      exitCode: EX_PROTOCOL,
    };
  }
  return { todo: 'the server is reachable: fix what it says (see its log), or correct DATABASE_URL', exitCode: EX_UNAVAILABLE };
}

/**
 * The line for a server (or pooler) that answered the connection with an error: it quotes what
 * the server said and never says "cannot reach". Undefined when the error is not such an answer.
 */
export function explainServerRefusal(error: unknown, database: string): { line: string; exitCode: number } | undefined {
  const answer = serverAnswer(error);
  if (!answer) return undefined;
  const { todo, exitCode } = advice(answer.code, answer.message);
  return { line: `${database} answered "${answer.message}" (SQLSTATE ${answer.code}): ${todo}`, exitCode };
}
