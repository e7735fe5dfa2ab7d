import cliProgress from 'cli-progress';
import type { SeedProgress } from '../seed/seedTenant.ts';

/** How often a log line is written when stderr is not a terminal. */
const LINE_EVERY_MS = 5_000;

const whole = (n: number) => n.toLocaleString('en');

/** 950, 12.3k, 4.56M: short enough for the bar to fit 80 columns. */
function short(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface SeedReporter {
  progress(p: SeedProgress): void;
  /** Stops drawing (before the final line, or a message). */
  stop(): void;
}

/**
 * Progress of a seed run on stderr: a bar on a terminal; otherwise a plain line every few
 * seconds (rows done, rows/s, ETA), as logs and CI read them.
 */
export function seedReporter(stream: NodeJS.WriteStream = process.stderr): SeedReporter {
  const started = performance.now();
  let first: number | undefined;
  let lastLine = started;
  let bar: cliProgress.SingleBar | undefined;
  const measure = (p: SeedProgress) => {
    const done = p.accounts.done + p.payments.done;
    const total = p.accounts.total + p.payments.total;
    first ??= done;
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? (done - first) / seconds : 0;
    return { done, total, rate, eta: rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY };
  };
  return {
    progress(p) {
      const starting = first === undefined;
      const m = measure(p);
      const phase = p.accounts.done < p.accounts.total ? 'accounts' : 'payments';
      if (starting && (p.before.accounts || p.before.payments)) {
        stream.write(
          `continuing an interrupted seed run: ${whole(p.before.accounts)} of ${whole(p.accounts.total)} accounts and ${whole(p.before.payments)} of ${whole(p.payments.total)} payments were already in\n`,
        );
      }
      if (stream.isTTY) {
        if (!bar) {
          bar = new cliProgress.SingleBar(
            { stream, format: 'seed |{bar}| {percentage}% {done}/{all} {phase} | {rate}/s | ETA {left}', barsize: 20, hideCursor: true },
            cliProgress.Presets.shades_classic,
          );
          bar.start(m.total, m.done, { phase, done: short(m.done), all: short(m.total), rate: '-', left: '?' });
        }
        bar.update(m.done, { phase, done: short(m.done), all: short(m.total), rate: whole(Math.round(m.rate)), left: duration(m.eta) });
        return;
      }
      const now = performance.now();
      if (now - lastLine >= LINE_EVERY_MS && m.done < m.total) {
        lastLine = now;
        stream.write(
          `seed: ${whole(p.accounts.done)}/${whole(p.accounts.total)} accounts, ${whole(p.payments.done)}/${whole(p.payments.total)} payments (${((100 * m.done) / Math.max(m.total, 1)).toFixed(1)}%), ${whole(Math.round(m.rate))} rows/s, ETA ${duration(m.eta)}\n`,
        );
      }
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
