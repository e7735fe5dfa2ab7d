import { Worker } from 'node:worker_threads';

/** How often the poller asks, when the caller does not say. */
export const HEALTH_EVERY_MS = 10;

export interface HealthLatencies {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : NaN);
const round = (x: number) => Math.round(x * 100) / 100;

/** p50, p99 and max of some latencies (ms). */
export function summarizeLatencies(latencies: number[]): HealthLatencies {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { samples: sorted.length, p50: round(quantile(sorted, 0.5)), p99: round(quantile(sorted, 0.99)), max: round(sorted.at(-1) ?? NaN) };
}

/**
 * Polls /health every `every` ms, one request at a time, from a worker thread: its own event
 * loop, so the time the bench's main thread spends reading what the load brings back (16
 * clients' 2.6 MB pages, or a 536 MB export through its HTTP parser) is not counted as the
 * server's. Until the second round of the per-request work this ran on the main thread beside
 * the load's own clients, and their parsing was counted in /health's latency.
 */
export function pollHealth(url: string, every = HEALTH_EVERY_MS): { stop(): Promise<number[]> } {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    let running = true;
    const samples = [];
    parentPort.once('message', () => { running = false; });
    (async () => {
      while (running) {
        const started = performance.now();
        const response = await fetch(workerData.url);
        await response.arrayBuffer();
        samples.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, workerData.every));
      }
      parentPort.postMessage(samples);
    })();`;
  const worker = new Worker(source, { eval: true, workerData: { url, every } });
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        worker.once('message', (samples: number[]) => {
          void worker.terminate();
          resolve(samples);
        });
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}
