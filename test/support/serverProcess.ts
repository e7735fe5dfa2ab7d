import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Runs `cli serve` as its own process on a free port, as an operator would. Rate limits are off
 * (tests drive load from one address with one key) unless a test sets them, as in testApp.ts.
 */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [resolve('src/cli/main.ts'), 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_KEY: '0', RATE_LIMIT_PER_IP: '0', ...env },
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const url = await new Promise<string>((ok, fail) => {
    const check = setInterval(() => {
      const match = /Listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(output);
      if (match) {
        clearInterval(check);
        ok(match[1]);
      }
    }, 20);
    child.on('exit', (code) => {
      clearInterval(check);
      fail(new Error(`server exited with ${code}: ${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done(child.exitCode);
        child.on('exit', (code) => done(code));
        child.kill('SIGTERM');
      }),
  };
}
