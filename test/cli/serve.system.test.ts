import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = resolve('src/cli/main.ts');

/** Starts `serve` as `npm start` would, in a directory of its own, and waits for its banner. */
function start(cwd: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    cwd,
    env: { ...process.env, DATABASE_URL: '', PORT: '0', LOG_LEVEL: 'warn', ...env },
  });
  let output = '';
  const ready = new Promise<string>((resolveReady, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (/Try it:[\s\S]*curl .*\n/.test(output) || output.includes('Listening on')) resolveReady(output);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  return { child, ready };
}

function exitOf(child: ChildProcess) {
  return new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
}

describe('serve on the embedded default database (the README’s first command)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-serve-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates demo data on first start, prints a working key and curl, and stops cleanly on SIGTERM', async () => {
    const { child, ready } = start(dir);
    const banner = await ready;
    const key = /Bearer (apk_[A-Za-z0-9_-]+)/.exec(banner)![1];
    const url = /'(http:\/\/[^']+)'/.exec(banner)![1];
    expect(banner).toContain(`${new URL(url).origin}/docs`);
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { meta: { total: number }; data: unknown[] };
    expect(body.meta.total).toBeGreaterThan(1000);
    expect(body.data).toHaveLength(2);
    const accounts = (await (await fetch(new URL('/v3/accounts', url), { headers: { authorization: `Bearer ${key}` } })).json()) as { meta: { total: number } };
    expect(accounts.meta.total).toBe(40);
    const exited = exitOf(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('does not add demo data again on the next start', async () => {
    const { child, ready } = start(dir);
    const banner = await ready;
    expect(banner).not.toContain('Demo API key');
    // The demo tenant is there: the hint names it, and the reference.
    expect(banner).toMatch(/Reference: http:\/\/127\.0\.0\.1:\d+\/docs\./);
    expect(banner).toContain('npm run --silent cli -- keys create --tenant demo --scopes read,write');
    const exited = exitOf(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
