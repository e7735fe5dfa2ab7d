/**
 * The PostgreSQL settings every statement of ours runs under, and the two ways they reach the
 * server: as the connection's startup `options` (a direct connection), or as `set_config(…, true)`
 * inside each statement's own transaction (behind a pooler, which refuses startup options and
 * hands each transaction to whichever server connection is free).
 */

/** A setting's name and its value, as `SET name = value` would take them. */
export type Setting = readonly [name: string, value: string];

export interface SettingsOptions {
  /** `statement_timeout` in ms; 0 or unset: none. */
  statementTimeoutMs?: number;
  /** `search_path` (tests isolate themselves in a schema of their own). */
  searchPath?: string;
  /** Named prepared statements are kept: their plan should be the generic one, made once. */
  namedStatements: boolean;
}

/**
 * Ours, overriding DATABASE_URL's own `options`: TimeZone UTC and DateStyle ISO, the form
 * timestamptzText.ts reads fastest; JIT off, as these short OLTP statements would pay a compile
 * a generic plan's cost estimate triggers; plan_cache_mode only with named statements
 * (preparedStatements.ts), which keep one generic plan per connection (decision 0010).
 */
export function sessionSettings(options: SettingsOptions): Setting[] {
  const settings = new Map<string, string>();
  settings.set('TimeZone', 'UTC');
  settings.set('DateStyle', 'ISO');
  if (options.namedStatements) settings.set('plan_cache_mode', 'force_generic_plan');
  settings.set('jit', 'off');
  if (options.searchPath) settings.set('search_path', options.searchPath);
  if (options.statementTimeoutMs) settings.set('statement_timeout', String(options.statementTimeoutMs));
  return [...settings];
}

/** Later settings of the same name replace earlier ones. */
export function mergeSettings(...lists: ReadonlyArray<readonly Setting[]>): Setting[] {
  return [...new Map(lists.flat())];
}

/** `-c name=value` for each, as libpq's `options` takes them (spaces in a value escaped). */
export function startupOptionsText(settings: readonly Setting[]): string {
  return settings.map(([name, value]) => `-c ${name}=${value.replace(/[\\\s]/g, (c) => `\\${c}`)}`).join(' ');
}

const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * One statement that applies every setting to the current transaction only
 * (`set_config(name, value, is_local => true)`), so whatever server connection runs it, the
 * statements after it in the same transaction have them and the next transaction does not.
 */
export function settingsStatement(settings: readonly Setting[]): string {
  return `select ${settings.map(([name, value]) => `set_config(${sqlText(name)}, ${sqlText(value)}, true)`).join(', ')}`;
}

/**
 * The settings in a connection string's `options` (`-c name=value`, `-cname=value`,
 * `--name=value`; a backslash escapes the next character). Behind a pooler they are applied in
 * each transaction instead; any other server flag cannot be, and is refused by name.
 */
export function parseStartupOptions(text: string): Setting[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  const settings: Setting[] = [];
  for (let i = 0; i < words.length; i++) {
    let assignment: string | undefined;
    if (words[i] === '-c') assignment = words[++i];
    else if (words[i].startsWith('--')) assignment = words[i].slice(2);
    else if (words[i].startsWith('-c')) assignment = words[i].slice(2);
    const equals = assignment?.indexOf('=') ?? -1;
    if (!assignment || equals <= 0) throw new Error(`DATABASE_URL options: only "-c name=value" settings are understood, got ${JSON.stringify(text)}`);
    settings.push([assignment.slice(0, equals).replace(/-/g, '_'), assignment.slice(equals + 1)]);
  }
  return settings;
}
