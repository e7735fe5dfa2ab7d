/** Exit code for a configuration error (EX_CONFIG, sysexits.h). */
export const EX_CONFIG = 78;

/** Settings that cannot start the program: one line per problem, no stack, no secret. */
export class ConfigError extends Error {
  readonly exitCode = EX_CONFIG;
  readonly lines: string[];
  constructor(lines: string[]) {
    super(lines.join('\n'));
    this.name = 'ConfigError';
    this.lines = lines;
  }
}
