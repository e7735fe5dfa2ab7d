import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SCRIPTS = ['scripts/bench/main.ts', 'scripts/bench/profile/main.ts', 'scripts/explain/main.ts', 'scripts/soak/main.ts'];

function run(script: string, ...args: string[]) {
  return spawnSync(process.execPath, [script, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
  });
}

describe.each(SCRIPTS)('the operator script %s', (script) => {
  it('prints its usage for --help and exits 0 without touching a database', () => {
    const result = run(script, '--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run \S+ -- \[--/);
    expect(result.stdout).toContain(script);
  });

  it('refuses a mistyped flag in one line with its usage and exit code 2, not a stack trace', () => {
    const result = run(script, '--no-such-flag');
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe("Unknown option '--no-such-flag'");
    expect(result.stderr).toContain('Usage: npm run');
    expect(result.stderr).not.toMatch(/at .*node:internal|ERR_PARSE_ARGS/);
  });
});
