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
  /** Whether the referenced table is a tenant's (has tenant_id): then the lookup names the tenant too. */
  refTenant: boolean;
}

/** A table whose rows a load writes without its foreign-key triggers: the keys, the values its rows referenced, and those looked up. */
interface Deferred {
  keys: Array<ForeignKey & { values: Set<unknown>; checked: Set<unknown> }>;
}

/**
 * A load in one transaction writes a table's rows with `session_replication_role = replica` (no
 * per-row FK triggers), then looks up and locks FOR KEY SHARE each distinct referenced value once at
 * the statement's end, failing the load on a missing one: the same check, once per value rather than
 * per row (decision 0022). Only where FK triggers are all a table has and the role may set it.
 */
export class DeferredForeignKeys {
  readonly #tables = new Map<string, Deferred | undefined>();
  readonly #tenantId: string;

  private constructor(tenantId: string) {
    this.#tenantId = tenantId;
  }

  /** The deferral for this transaction writing `tenantId`'s rows, or undefined when the role may not set session_replication_role. */
  static async open(trx: Transaction<Database>, tenantId: string): Promise<DeferredForeignKeys | undefined> {
    await sql`savepoint may_set_replication_role`.execute(trx);
    try {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`set local session_replication_role = origin`.execute(trx);
      await sql`release savepoint may_set_replication_role`.execute(trx);
      return new DeferredForeignKeys(tenantId);
    } catch {
      await sql`rollback to savepoint may_set_replication_role`.execute(trx);
      await sql`release savepoint may_set_replication_role`.execute(trx);
      return undefined;
    }
  }

  /**
   * Runs `write`, which writes `rows` (handed to it as they go by) into `table`, without the
   * table's foreign-key triggers when it may, noting what the rows reference; then, as the
   * triggers would have by the statement's end, looks up and locks what it referenced first.
   */
  async around<R extends object, T>(trx: Transaction<Database>, table: string, rows: Iterable<R>, write: (rows: Iterable<R>) => Promise<T>): Promise<T> {
    const deferred = await this.#deferrable(trx, table);
    if (!deferred) return write(rows);
    await sql`set local session_replication_role = replica`.execute(trx);
    const result = await write(noting(rows, deferred));
    await sql`set local session_replication_role = origin`.execute(trx);
    await lookUp(trx, table, deferred, this.#tenantId);
    return result;
  }

  /** Before the commit: every value the rows written referenced has been looked up and locked (throws otherwise). */
  async check(trx: Transaction<Database>): Promise<void> {
    for (const [table, deferred] of this.#tables) if (deferred) await lookUp(trx, table, deferred, this.#tenantId);
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
        format_type(ra.atttypid, ra.atttypmod) as "refType", cardinality(c.conkey)::int as columns,
        exists (select 1 from pg_attribute t where t.attrelid = c.confrelid and t.attname = 'tenant_id' and not t.attisdropped) as "refTenant"
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      join pg_attribute ra on ra.attrelid = c.confrelid and ra.attnum = c.confkey[1]
      where c.contype = 'f' and c.conrelid = ${table}::regclass`.execute(trx);
    const { rows: rules } = await sql<{ rules: boolean }>`select relhasrules as rules from pg_class where oid = ${table}::regclass`.execute(trx);
    const deferred =
      others[0].n === 0 && !rules[0].rules && keys.every((k) => k.columns === 1)
        ? { keys: keys.map(({ columns: _, ...key }) => ({ ...key, values: new Set<unknown>(), checked: new Set<unknown>() })) }
        : undefined;
    this.#tables.set(table, deferred);
    return deferred;
  }
}

/**
 * Looks up the values a table's rows referenced that were not looked up yet, one statement per
 * key, locking them FOR KEY SHARE (what each row's trigger does); throws if any is missing.
 */
async function lookUp(trx: Transaction<Database>, table: string, deferred: Deferred, tenantId: string): Promise<void> {
  for (const key of deferred.keys) {
    const values = [...key.values].filter((v) => !key.checked.has(v));
    if (values.length === 0) continue;
    const tenant = key.refTenant ? sql`tenant_id = ${tenantId} and ` : sql``;
    const found = await sql<{ value: unknown }>`select ${sql.raw(key.refColumn)} as value from ${sql.raw(key.refTable)}
      where ${tenant}${sql.raw(key.refColumn)} = any(${values}::${sql.raw(key.refType)}[]) for key share`.execute(trx);
    if (found.rows.length !== values.length) {
      const there = new Set(found.rows.map((r) => String(r.value)));
      const missing = values.filter((v) => !there.has(String(v)));
      throw new Error(
        `insert or update on table "${table}" violates foreign key constraint "${key.name}": ${missing.length} value(s) not in ${key.refTable}, e.g. ${String(missing[0])}`,
      );
    }
    for (const value of values) key.checked.add(value);
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
