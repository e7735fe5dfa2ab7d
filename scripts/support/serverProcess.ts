import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export interface ServerOptions {
  /** Added to this process's environment (DATABASE_URL, limits, …). */
  env?: Record<string, string>;
  /** Node flags before the script (the soak's GC probe, heap snapshots). */
  nodeArgs?: string[];
  cwd?: string;
  /** Each line the server writes to stderr, as it comes (the bench passes them through). */
  onStderrLine?: (line: string) => void;
  /** The script and its arguments; by default the service itself (`cli serve`). The bench starts the floor so. */
  command?: string[];
}

export interface ServerProcess {
  /** Its origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then its exit code once it has drained and exited. */
  stop(): Promise<number | null>;
}

/**
 * `cli serve` as its own process on a free loopback port, as an operator runs it: the one
 * starter of the tests (test/support/serverProcess.ts), the benchmark and the soak. Rate limits
 * are off unless `env` sets them: all three drive one key from one address far past the defaults.
 */
export async function startServerProcess(options: ServerOptions = {}): Promise<ServerProcess> {
  const { env = {}, nodeArgs = [], cwd, onStderrLine, command = [resolve('src/cli/main.ts'), 'serve'] } = options;
  const child = spawn(process.execPath, [...nodeArgs, ...command], {
    cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_KEY: '0', RATE_LIMIT_PER_IP: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let pendingLine = '';
  child.stderr!.on('data', (chunk) => {
    output += chunk;
    if (!onStderrLine) return;
    pendingLine += chunk;
    const lines = pendingLine.split('\n');
    pendingLine = lines.pop()!;
    for (const line of lines) onStderrLine(line);
  });
  const url = await new Promise<string>((ok, fail) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /Listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(output);
      if (match) ok(match[1]);
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${output}`)));
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
