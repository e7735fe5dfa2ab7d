import { CompiledQuery, type Compilable } from 'kysely';

/** Where a request's own value goes in a statement built before any request's values are known. */
class Slot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** Makes the placeholder for the value named `name`, typed as the value it stands for. */
export type SlotMaker = <T>(name: string) => T;

/** Statements kept, per process; a few dozen list shapes in practice. */
const MAX_TEMPLATES = 1000;

/**
 * Compiled statements per list shape. Building and compiling a Kysely query cost more than
 * running the bucket statement of a deep page (~120 µs of ~250 µs per request, profiled), and
 * its SQL text depends only on the shape of the list (filters, sort, which counts place it),
 * never on the values. So a statement is built once per shape, with a placeholder wherever a
 * value goes, and each request gets the same SQL with its own values put in the placeholders'
 * places. Only the values passed to `statement` may vary between requests of one key: anything
 * the builder decides from a value (how many values a filter has, which counts apply) belongs
 * in the key.
 */
export class StatementTemplates {
  /**
   * The text and parameters only: a compiled query also holds the operation-node tree it was
   * compiled from, ~100 KB for a list statement, which nothing here reads again.
   */
  readonly #compiled = new Map<string, { sql: string; parameters: readonly unknown[] }>();

  statement(key: string, build: (slot: SlotMaker) => Compilable, values: Record<string, unknown>): CompiledQuery {
    let compiled = this.#compiled.get(key);
    if (!compiled) {
      const { sql, parameters } = build(<T>(name: string) => new Slot(name) as T).compile();
      compiled = { sql, parameters };
      if (this.#compiled.size >= MAX_TEMPLATES) this.#compiled.clear();
      this.#compiled.set(key, compiled);
    }
    const parameters = compiled.parameters.map((p) => {
      if (!(p instanceof Slot)) return p;
      if (!(p.name in values)) throw new Error(`statement ${key}: no value for ${p.name}`);
      return values[p.name];
    });
    return CompiledQuery.raw(compiled.sql, parameters);
  }
}

/** `statement` with a driver's marker (PREPARED, READ_AT_ONCE, BOUNDED) put before its SQL, where the driver looks for it. */
export function marked<O>(marker: string, statement: Compilable<O>): Compilable<O> {
  return {
    compile: () => {
      const { sql, parameters } = statement.compile();
      return CompiledQuery.raw(marker + sql, [...parameters]) as CompiledQuery<O>;
    },
  };
}

const perHandle = new WeakMap<object, StatementTemplates>();

/** The templates kept for one database handle: a compiled text is that database's own (its dialect's SQL). */
export function templatesOf(handle: object): StatementTemplates {
  let templates = perHandle.get(handle);
  if (!templates) perHandle.set(handle, (templates = new StatementTemplates()));
  return templates;
}
