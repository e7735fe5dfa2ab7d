import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import { SqliteDialect } from 'kysely';

/**
 * Kysely's SqliteDialect speaks the better-sqlite3 interface; node:sqlite is close but
 * spreads parameters and has no `reader` flag, so this bridges the two. A statement is a
 * reader when it yields columns (SELECT, or anything with RETURNING).
 */
class StatementBridge {
  readonly #stmt: StatementSync;
  readonly reader: boolean;
  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    this.reader = stmt.columns().length > 0;
  }
  all(parameters: readonly unknown[]) {
    return this.#stmt.all(...(parameters as SQLInputValue[]));
  }
  run(parameters: readonly unknown[]) {
    const { changes, lastInsertRowid } = this.#stmt.run(...(parameters as SQLInputValue[]));
    return { changes, lastInsertRowid };
  }
  iterate(parameters: readonly unknown[]) {
    return this.#stmt.iterate(...(parameters as SQLInputValue[]));
  }
}

class DatabaseBridge {
  readonly raw: DatabaseSync;
  // Kysely compiles the same SQL text for every call of one query shape, so cache statements.
  readonly #statements = new Map<string, StatementBridge>();
  constructor(raw: DatabaseSync) {
    this.raw = raw;
  }
  prepare(sql: string) {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = new StatementBridge(this.raw.prepare(sql));
      if (this.#statements.size > 500) this.#statements.clear();
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }
  close() {
    this.raw.close();
  }
}

export function openSqlite(path: string): DatabaseSync {
  const raw = new DatabaseSync(path, { timeout: 5000 });
  raw.exec('PRAGMA journal_mode = WAL');
  raw.exec('PRAGMA synchronous = NORMAL');
  raw.exec('PRAGMA foreign_keys = ON');
  return raw;
}

export function nodeSqliteDialect(raw: DatabaseSync): SqliteDialect {
  // The bridge satisfies the subset of better-sqlite3 that Kysely calls.
  return new SqliteDialect({ database: new DatabaseBridge(raw) as never });
}
