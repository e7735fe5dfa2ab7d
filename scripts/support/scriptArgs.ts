import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/**
 * The flags of an operator script (bench, soak, explain, bench:profile). `--help` prints the
 * script's usage and a mistyped flag is refused in one line with that usage, exit code 2, instead
 * of parseArgs' stack trace: someone trying `npm run bench -- --szes 1000000` should learn the
 * spelling, not read node internals. The usage is written from the options themselves (defaults
 * as examples, `hints` for the rest), so it cannot fall behind them.
 */
export function parseScriptArgs<const T extends ParseArgsOptionsConfig>(
  script: { command: string; file: string; hints?: Partial<Record<keyof T, string>> },
  options: T,
  args: string[] = process.argv.slice(2),
) {
  const usage = scriptUsage(script, options);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message.split('. ')[0]}\n\n${usage}\n`);
    process.exit(2);
  }
}

/** `Usage: npm run bench -- [--db sqlite,postgres] [--10m] …` and where each flag is explained. */
export function scriptUsage(script: { command: string; file: string; hints?: Record<string, string | undefined> }, options: ParseArgsOptionsConfig): string {
  const flags = Object.entries(options).map(([name, option]) => {
    if (option.type === 'boolean') return `[--${name}]`;
    const example = script.hints?.[name] ?? (option.default === undefined ? '<value>' : String(option.default));
    return `[--${name} ${example}]`;
  });
  return `Usage: npm run ${script.command} -- ${flags.join(' ')}\n\nWhat it does and what each flag means: the comment at the top of ${script.file}.`;
}
