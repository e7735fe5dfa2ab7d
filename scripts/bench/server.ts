import { spawn, type ChildProcess } from 'node:child_process';

export interface RunningServer {
  origin: string;
  stop(): Promise<void>;
}

/** Starts `cli serve` on a free loopback port against one dataset. */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const child: ChildProcess = spawn(process.execPath, ['src/cli/main.ts', 'serve'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /Listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return {
    origin,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
