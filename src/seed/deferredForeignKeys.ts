import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/** A one-column foreign key, as the catalog defines it. */
interface ForeignKey {
  name: string;
  column: string;
  /** The referenced table and column, quoted, and the column's type (for the array of values). */
  refTable: string;
  refColumn: string;
  refType: string;
}

/** A table whose rows a load writes without its foreign-key triggers: the keys, and the values its rows referenced. */
interface Deferred {
  keys: Array<ForeignKey & { values: Set<unknown> }>;
}

/**
 * PostgreSQL checks a foreign key with a trigger per inserted row, each a query of its own
 * (`select 1 from accounts where id = $1 for key share`): a 1M-payment load makes ~3.8M of them
 * (payments' tenant and account, every list_buckets row's tenant), the largest part of the
 * server's CPU in its rows and counts (docs/performance.md, "Seeding").
 *
 * A load in one transaction instead writes a table's rows with `session_replication_role =
 * replica` (no per-row triggers), for that statement only, noting the distinct values its
 * rows reference; before the commit, `check` looks each key's values up in one statement and
 * locks them FOR KEY SHARE, as the triggers would have, and fails the load (it rolls back)
 * if any is missing. What is checked is the same (every referenced value exists at the commit
 * and cannot go before it); when, once rather than per row.
 *
 * Only where that is all the triggers do: a table with any other trigger (or a rule, or a
 * foreign key of several columns) keeps its triggers, and so does every table when the role
 * may not set session_replication_role (a superuser, or one granted SET on it: tried in a
 * savepoint). Statements not written through `around` run as always.
 */
export class DeferredForeignKeys {
  readonly #tables = new Map<string, Deferred | undefined>();

  private constructor() {}

  /** The deferral for this transaction, or undefined when the role may not set session_replication_role. */
  static async open(trx: Transaction<Database>): Promise<DeferredForeignKeys | undefined> {
    await sql`savepoint may_set_replication_role`.execute(trx);
    try {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`set local session_replication_role = origin`.execute(trx);
      await sql`release savepoint may_set_replication_role`.execute(trx);
      return new DeferredForeignKeys();
    } catch {
      await sql`rollback to savepoint may_set_replication_role`.execute(trx);
      await sql`release savepoint may_set_replication_role`.execute(trx);
      return undefined;
    }
  }

  /**
   * Runs `write`, which writes `rows` (handed to it as they go by) into `table`, without the
   * table's foreign-key triggers when it may, noting what the rows reference.
   */
  async around<R extends object, T>(trx: Transaction<Database>, table: string, rows: Iterable<R>, write: (rows: Iterable<R>) => Promise<T>): Promise<T> {
    const deferred = await this.#deferrable(trx, table);
    if (!deferred) return write(rows);
    await sql`set local session_replication_role = replica`.execute(trx);
    const result = await write(noting(rows, deferred));
    await sql`set local session_replication_role = origin`.execute(trx);
    return result;
  }

  /** Looks up every value the rows written referenced, locking it FOR KEY SHARE; throws if any is missing. */
  async check(trx: Transaction<Database>): Promise<void> {
    for (const [table, deferred] of this.#tables) {
      for (const key of deferred?.keys ?? []) {
        if (key.values.size === 0) continue;
        const values = [...key.values];
        const found = await sql<{ value: unknown }>`select ${sql.raw(key.refColumn)} as value from ${sql.raw(key.refTable)}
          where ${sql.raw(key.refColumn)} = any(${values}::${sql.raw(key.refType)}[]) for key share`.execute(trx);
        if (found.rows.length !== values.length) {
          const there = new Set(found.rows.map((r) => String(r.value)));
          const missing = values.filter((v) => !there.has(String(v)));
          throw new Error(
            `insert or update on table "${table}" violates foreign key constraint "${key.name}": ${missing.length} value(s) not in ${key.refTable}, e.g. ${String(missing[0])}`,
          );
        }
      }
    }
  }

  async #deferrable(trx: Transaction<Database>, table: string): Promise<Deferred | undefined> {
    if (this.#tables.has(table)) return this.#tables.get(table);
    // Every enabled trigger must be a foreign key's own (the referencing side's checks, which
    // this replaces, or the referenced side's, which only updates and deletes fire), no rule.
    const { rows: others } = await sql<{ n: number }>`select count(*)::int as n from pg_trigger t
      where t.tgrelid = ${table}::regclass and t.tgenabled <> 'D'
        and not (t.tgisinternal and exists (select 1 from pg_constraint c where c.oid = t.tgconstraint and c.contype = 'f'))`.execute(trx);
    const { rows: keys } = await sql<ForeignKey & { columns: number }>`select c.conname as name, a.attname as column,
        c.confrelid::regclass::text as "refTable", quote_ident(ra.attname) as "refColumn",
        format_type(ra.atttypid, ra.atttypmod) as "refType", cardinality(c.conkey)::int as columns
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      join pg_attribute ra on ra.attrelid = c.confrelid and ra.attnum = c.confkey[1]
      where c.contype = 'f' and c.conrelid = ${table}::regclass`.execute(trx);
    const { rows: rules } = await sql<{ rules: boolean }>`select relhasrules as rules from pg_class where oid = ${table}::regclass`.execute(trx);
    const deferred =
      others[0].n === 0 && !rules[0].rules && keys.every((k) => k.columns === 1)
        ? { keys: keys.map(({ columns: _, ...key }) => ({ ...key, values: new Set<unknown>() })) }
        : undefined;
    this.#tables.set(table, deferred);
    return deferred;
  }
}

/** The rows, passed on one by one, each referenced value noted on the way (a null references nothing). */
function* noting<R extends object>(rows: Iterable<R>, deferred: Deferred): Generator<R> {
  const keys = deferred.keys.map((k) => ({ column: k.column as keyof R, values: k.values }));
  for (const row of rows) {
    for (const key of keys) {
      const value = row[key.column];
      if (value !== null && value !== undefined) key.values.add(value);
    }
    yield row;
  }
}
