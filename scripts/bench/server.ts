import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export interface RunningServer {
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface ServerOptions {
  env?: Record<string, string>;
  /** Node flags before the script (the soak's GC probe, heap snapshots). */
  nodeArgs?: string[];
  cwd?: string;
  /** Each line the server writes to stderr; by default passed through to ours. */
  onStderrLine?: (line: string) => void;
  /** The program and its arguments; by default the service itself (`cli serve`). */
  command?: string[];
}

/**
 * Starts `cli serve` on a free loopback port against one dataset, for the benchmark and the
 * soak. Rate limits are off: both drive one key from one address far past the defaults.
 */
export async function startServer(databaseUrl: string, options: ServerOptions = {}): Promise<RunningServer> {
  const { env = {}, nodeArgs = [], cwd, onStderrLine = (line) => process.stderr.write(`${line}\n`), command = [resolve('src/cli/main.ts'), 'serve'] } = options;
  const child = spawn(process.execPath, [...nodeArgs, ...command], {
    cwd,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_KEY: '0', RATE_LIMIT_PER_IP: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pending = '';
  child.stderr!.on('data', (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) onStderrLine(line);
  });
  let output = '';
  const origin = await new Promise<string>((ok, fail) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /Listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(output);
      if (match) ok(match[1]);
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${output}`)));
  });
  return {
    origin,
    child,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.on('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
