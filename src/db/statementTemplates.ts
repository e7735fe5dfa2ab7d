import { CompiledQuery, type Compilable } from 'kysely';
import { driverFlagsOf, withFlags, type DriverFlags } from './driverFlags.ts';
import { flatCopy, TextBoundedMap } from './textBoundedMap.ts';

/** Where a request's own value goes in a statement built before any request's values are known. */
class Slot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** Makes the placeholder for the value named `name`, typed as the value it stands for. */
export type SlotMaker = <T>(name: string) => T;

/** Statements kept per set of templates: the soak's mix makes hundreds of list shapes. */
const MAX_TEMPLATES = 1000;
/**
 * Characters of SQL text and keys kept per set of templates (~4 MB): a list shape's text runs
 * from under 1 KB to tens of KB (a ranged list's bucket segments are part of its shape), so 1000
 * of them could hold 20 MB.
 */
export const MAX_TEMPLATE_CHARS = 4_000_000;

/**
 * Compiled statements per list shape: building and compiling a Kysely query cost more than running
 * a deep page's statement, and its SQL depends only on the shape (decision 0006). Each request gets
 * the same SQL with its own values in the placeholders, so anything the builder decides from a
 * value (how many values a filter has, which counts apply) belongs in the key.
 */
export class StatementTemplates {
  /**
   * The text, parameters and driver flags only: a compiled query also holds the operation-node
   * tree it was compiled from, ~100 KB for a list statement, which nothing here reads again.
   */
  readonly #compiled: TextBoundedMap<{ sql: string; parameters: readonly unknown[]; flags: DriverFlags | undefined }>;

  constructor(maxTemplates = MAX_TEMPLATES, maxChars = MAX_TEMPLATE_CHARS) {
    this.#compiled = new TextBoundedMap(maxTemplates, maxChars);
  }

  statement(key: string, build: (slot: SlotMaker) => Compilable, values: Record<string, unknown>): CompiledQuery {
    let compiled = this.#compiled.get(key);
    if (!compiled) {
      const built = build(<T>(name: string) => new Slot(name) as T).compile();
      const flags = driverFlagsOf(built);
      compiled = { sql: flatCopy(built.sql), parameters: built.parameters, flags: Object.keys(flags).length > 0 ? flags : undefined };
      this.#compiled.set(key, compiled, key.length + compiled.sql.length);
    }
    const parameters = compiled.parameters.map((p) => {
      if (!(p instanceof Slot)) return p;
      if (!(p.name in values)) throw new Error(`statement ${key}: no value for ${p.name}`);
      return values[p.name];
    });
    const statement = CompiledQuery.raw(compiled.sql, parameters);
    return compiled.flags ? withFlags(statement, compiled.flags) : statement;
  }
}

const perHandle = new WeakMap<object, StatementTemplates>();

/** The templates kept for one database handle: a compiled text is that database's own (its dialect's SQL). */
export function templatesOf(handle: object): StatementTemplates {
  let templates = perHandle.get(handle);
  if (!templates) perHandle.set(handle, (templates = new StatementTemplates()));
  return templates;
}
