import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry } from 'prom-client';

const ASK = 'payments:metrics-ask';
const ANSWER = 'payments:metrics-answer';
const TIMEOUT_MS = 5_000;

interface Answer {
  type: typeof ANSWER;
  id: string;
  text?: string;
  error?: string;
}

/** Worker side: the primary gathers every worker's registry and answers with the aggregate. */
export function askPrimaryForMetrics(): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error('metrics: the primary did not answer')), TIMEOUT_MS);
    const onMessage = (message: Answer) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      finish(message.error ? new Error(message.error) : undefined, message.text);
    };
    function finish(error?: Error, text?: string) {
      clearTimeout(timer);
      process.off('message', onMessage);
      if (error) reject(error);
      else resolve(text ?? '');
    }
    process.on('message', onMessage);
    process.send!({ type: ASK, id });
  });
}

/** Primary side: answers workers' requests for the cluster-wide metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, text }),
      (error: Error) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, error: error.message }),
    );
  });
}
