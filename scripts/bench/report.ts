import type { BenchDialect } from './datasets.ts';
import { DEPTHS, type DeepCell, type DeepPages } from './deepPages.ts';
import type { Restored } from './restore.ts';
import type { Measured, Walk } from './scenarios.ts';
import type { HealthLatencies } from './healthPoller.ts';
import type { WalksUnderWrites } from './walks.ts';
import type { WriterStats } from './writer.ts';
import type { AgainstFloor } from './floor/againstFloor.ts';
import type { ExportRun, ExportsResult } from './exports.ts';

/** Everything measured on one dataset. */
export interface SizeResult {
  scenarios: Record<string, Measured>;
  deep: DeepPages;
  /** The walk of all payments at per_page=5000 without the writer (its row count is checked). */
  walk: Walk;
  walks: WalksUnderWrites;
  healthUnderLoad: HealthLatencies;
  /** Bytes of a per_page=5000 page by Content-Encoding. */
  compressed: Record<string, number>;
  /** Bytes (identity) of the same page with three fields (SPARSE_FIELDS). */
  sparseBytes: number;
  busiest: { id: string; payments: number };
  /** What the restore after the writer found and left. */
  restored?: Restored;
  /** The list cases beside the floor, the plainest endpoint over the same tables. */
  floor?: AgainstFloor;
  /** Statements per second of the SQL behind per_page=5000 alone (sqlAlone.ts). */
  sqlAlone?: number;
}

export interface RunShape {
  seconds: number;
  connections: number;
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const ratio = (a: number, b: number) => fmt(a / b, 2);
const n = (x: number) => x.toLocaleString('en');

function cell(m?: Measured): string {
  if (!m) return '–';
  return `${fmt(m.rps, 0)} · ${m.p50} · ${m.p99}${m.errors ? ` · ${m.errors} errors` : ''}${m.strategy ? ` [${m.strategy}]` : ''}`;
}

const deepCell = (c: DeepCell | undefined, lastPage: number) => (c ? `${cell(c.measured)} · p. ${n(c.page)}/${n(lastPage)}` : '–');

const strategies = (w: Walk) =>
  Object.entries(w.strategies)
    .map(([s, count]) => `${s} ${count}`)
    .join(', ');

function walkCell(w?: Walk): string {
  if (!w) return '–';
  const perPage = (w.serverSeconds * 1000) / w.pages;
  return `${w.pages} pages · ${n(w.rows)} rows · server ${fmt(perPage, 2)} ms/page · ${strategies(w)}${w.complete ? '' : ' · stopped early'}${w.failed ? ` · FAILED ${w.failed}` : ''}`;
}

function writerCell(s?: WriterStats, restored?: Restored): string {
  if (!s) return '–';
  const failures = Object.entries(s.failures).map(([kind, count]) => `${kind} ×${count}`).join(', ');
  return (
    `${s.created} created (${fmt(s.created / s.seconds)}/s) · ${s.captured} captured (${fmt(s.captured / s.seconds)}/s, ${s.partialCaptures} partial) in ${fmt(s.seconds)} s` +
    ` · failures ${s.createFailures + s.captureFailures}${failures ? ` (${failures})` : ''}` +
    ` · not sent ${s.behind.creates} creates, ${s.behind.captures} captures · write p50 ${fmt(s.latencyP50)} ms, p99 ${fmt(s.latencyP99)} ms` +
    (restored ? ` · restore: deleted ${n(restored.deleted)}, ${n(restored.payments)} payments left` : '')
  );
}

export function printTable(dialect: BenchDialect, results: Map<number, SizeResult>, shape: RunShape): void {
  const all = [...results.values()];
  const columns = [...results.keys()];
  const row = (label: string, value: (r: SizeResult) => string) => console.log(`| ${label} | ${all.map(value).join(' | ')} |`);
  console.log(`\n### ${dialect} (concurrency ${shape.connections}, ${shape.seconds} s per scenario)\n`);
  console.log('req/s · p50 · p99 (ms) [X-Page-Strategy of one probe]; deep pages also give page/last page.\n');
  console.log(`| scenario | ${columns.map((c) => `${n(c)} payments`).join(' | ')} |`);
  console.log(`|---|${columns.map(() => '---').join('|')}|`);
  for (const name of [...new Set(all.flatMap((r) => Object.keys(r.scenarios)))]) row(name, (r) => cell(r.scenarios[name]));
  row('busiest account (of the first 50): its payments', (r) => n(r.busiest.payments));
  for (const [i, list] of all[0].deep.lists.entries()) {
    for (const depth of DEPTHS) {
      row(`cold, ${list.shape}: ${depth}`, (r) => deepCell(r.deep.lists[i].cells[depth], r.deep.lists[i].lastPage));
    }
  }
  row('cold, page=5000&per_page=100', (r) => (r.deep.page5000 ? cell(r.deep.page5000.measured) : `– (last page ${n(r.deep.lastPageAt100)})`));
  row('walk all by links.next, per_page=5000', (r) => `${fmt(r.walk.seconds, 2)} s (server ${fmt(r.walk.serverSeconds, 2)} s) · ${r.walk.pages} pages · ${fmt(r.walk.megabytesPerSecond)} MB/s`);
  row('bytes of a per_page=5000 page: identity · gzip · br', (r) => `${n(r.compressed.identity)} · ${n(r.compressed.gzip)} · ${n(r.compressed.br)}`);
  row('/health p50 · p99 · max (ms), asked every 10 ms from a worker thread, while 16 clients pull 5000-row pages (p99 target < 50)', (r) => `${r.healthUnderLoad.p50} · ${r.healthUnderLoad.p99} · ${r.healthUnderLoad.max} (${r.healthUnderLoad.samples} polls)`);
  const writer = all.some((r) => r.walks.writer);
  for (const [i, pair] of all[0].walks.pairs.entries()) {
    row(`walk ${pair.shape.name}, no writer`, (r) => walkCell(r.walks.pairs[i].without));
    if (writer) row(`walk ${pair.shape.name}, writer running`, (r) => walkCell(r.walks.pairs[i].with));
    if (pair.cold90) {
      row(`cold 90 % page of ${pair.shape.name}, no writer: p50 (server time alone)`, (r) => {
        const c = r.walks.pairs[i].cold90!;
        return `${c.measured.p50} ms (${fmt(c.serverMs, 2)} ms) · p. ${n(c.page)}/${n(c.lastPage)}${c.measured.strategy ? ` [${c.measured.strategy}]` : ''}`;
      });
    }
  }
  if (writer) row('writer (target 50 creates/s + 50 captures/s)', (r) => writerCell(r.walks.writer, r.restored));
}

/** Per-dataset ratios: deep pages against page 1 of the same list, walks with the writer against without. */
export function printDepthAndWriteRatios(dialect: BenchDialect, results: Map<number, SizeResult>): void {
  const all = [...results.values()];
  const columns = [...results.keys()];
  const header = (first: string, cells: string) => `| ${first} | ${columns.map((c) => `${n(c)} payments: ${cells}`).join(' | ')} |\n|---|${columns.map(() => '---').join('|')}|`;
  const lines: string[] = [];
  for (const [i, list] of all[0].deep.lists.entries()) {
    lines.push(`| ${list.shape} | ${all.map((r) => {
      const cells = r.deep.lists[i].cells;
      return (['50 %', '90 %', 'last'] as const).map((d) => ratio(cells[d]!.measured.p50, cells['page 1']!.measured.p50)).join(' · ');
    }).join(' | ')} |`);
  }
  console.log(`\n#### ${dialect}: p50 of a cold deep page ÷ p50 of page 1 of the same list (target ≤ 2)\n\n${header('list', '50 % · 90 % · last')}\n${lines.join('\n')}`);

  if (!all.some((r) => r.walks.writer)) return;
  const walkLines = all[0].walks.pairs.map((pair, i) => {
    const target = pair.shape.moving ? '' : ' (target ≤ 1.5)';
    return `| ${pair.shape.name}${target} | ${all.map((r) => {
      const pair = r.walks.pairs[i];
      if (pair.ratio === undefined || !pair.ratioRange) return '–';
      return `${fmt(pair.ratio, 2)} (${fmt(pair.ratioRange[0], 2)}–${fmt(pair.ratioRange[1], 2)}, ${pair.rounds.length} rounds)`;
    }).join(' | ')} |`;
  });
  console.log(`\n#### ${dialect}: walk server time per page, writer running ÷ no writer: median of rounds (lowest–highest)\n\n${header('walk', 'ratio')}\n${walkLines.join('\n')}`);
}

/** Ratios across dataset sizes (the page-1 and walk targets); needs two sizes or more. */
export function printSizeRatios(dialect: BenchDialect, results: Map<number, SizeResult>): void {
  const smallestSize = Math.min(...results.keys());
  const largestSize = Math.max(...results.keys());
  const small = results.get(smallestSize)!;
  const large = results.get(largestSize)!;
  const p = (r: SizeResult, name: string) => r.scenarios[name];
  const lines: string[] = [];
  const label = `${n(largestSize)} vs ${n(smallestSize)}`;
  for (const [key, name] of [['page 1', 'unfiltered'], ['one account’s payments', 'one account'], ['page 1, filter[status]=succeeded', 'by status']] as const) {
    lines.push(`| page-1 p50 ${label}, ${name} (target ≤ 1.5) | ${ratio(p(large, key).p50, p(small, key).p50)} |`);
  }
  lines.push(`| page-1 req/s ${label} (target ≥ 0.7) | ${ratio(p(large, 'page 1').rps, p(small, 'page 1').rps)} |`);
  lines.push(`| 90%-deep page by links.next p50 ÷ page-1 p50, ${n(largestSize)} (target ≤ 1.5) | ${ratio(p(large, 'next page at 90% depth via links.next').p50, p(large, 'page 1').p50)} |`);
  lines.push(`| walk of ${n(largestSize)} at per_page 5000, server time (target < 6 s on PostgreSQL) | ${fmt(large.walk.serverSeconds, 2)} s (wall ${fmt(large.walk.seconds, 2)} s) |`);
  const hundredK = results.get(100_000);
  if (hundredK && largestSize > 100_000) {
    lines.push(`| walk server time per row, ${n(largestSize)} ÷ 100,000 (target ≤ 1.3) | ${ratio(large.walk.serverSeconds / largestSize, hundredK.walk.serverSeconds / 100_000)} |`);
  }
  console.log(`\n#### ${dialect}: ratios across sizes from this run\n\n| ratio | value |\n|---|---|\n${lines.join('\n')}`);
}

/**
 * Ours against the floor, per list case: req/s ÷ the floor's req/s (above 1: we are faster), then
 * each side's req/s and p50; "≠" marks a case where the two did not answer the same rows.
 */
export function printFloorRatios(dialect: BenchDialect, results: Map<number, SizeResult>): void {
  const sizes = [...results.keys()];
  const names = [...new Set(sizes.flatMap((s) => results.get(s)!.floor?.cases.map((c) => c.name) ?? []))];
  if (names.length === 0) return;
  const target = dialect === 'postgres' ? '≥ 1' : '≥ 1.5';
  console.log(`\n#### ${dialect}: ours ÷ the floor (plainest endpoint: count(*) + OFFSET, JSON.stringify), req/s (target ${target}; per_page=5000 ≥ 2)\n`);
  console.log(`| case | ${sizes.map((s) => `${n(s)} payments: ratio · ours req/s, p50 · floor req/s, p50`).join(' | ')} |`);
  console.log(`|---|${sizes.map(() => '---').join('|')}|`);
  for (const name of names) {
    const cells = sizes.map((s) => {
      const c = results.get(s)!.floor?.cases.find((x) => x.name === name);
      if (!c) return '–';
      return `**${ratio(c.ours.rps, c.floor.rps)}** · ${fmt(c.ours.rps, 0)}, ${c.ours.p50} ms · ${fmt(c.floor.rps, 0)}, ${c.floor.p50} ms${c.sameAnswer ? '' : ' · ≠ answers differ'}`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  const walks = sizes.map((s) => {
    const r = results.get(s)!;
    const f = r.floor?.walk;
    if (!f) return '–';
    return `**${ratio(f.serverSeconds, r.walk.serverSeconds)}** · ours ${fmt(r.walk.serverSeconds, 2)} s · floor ${fmt(f.serverSeconds, 2)} s (wall ${fmt(r.walk.seconds, 2)} · ${fmt(f.seconds, 2)} s)`;
  });
  console.log(`| walk all payments at per_page=5000, server time: floor ÷ ours (target ≥ 5 at 1M) | ${walks.join(' | ')} |`);
  const alone = sizes.map((s) => {
    const r = results.get(s)!;
    const ours = r.floor?.cases.find((c) => c.name === 'per_page=5000')?.ours.rps;
    if (!r.sqlAlone || !ours) return '–';
    return `**${ratio(ours, r.sqlAlone)}** · ours ${fmt(ours, 0)} req/s · SQL alone ${fmt(r.sqlAlone, 0)}/s`;
  });
  console.log(`| per_page=5000: ours ÷ the SQL alone (target ≥ 0.33) | ${alone.join(' | ')} |`);
}

/** The sparse-fieldset case: the per_page=5000 page as three fields. */
export const SPARSE_FIELDS = 'fields[payments]=id,amount,status';
export const SPARSE_SCENARIO = `page 1, per_page=5000, ${SPARSE_FIELDS}`;

/** A per_page=5000 page as three fields against the whole page, same run (targets: ≥ 3× smaller, not slower). */
export function printSparseRatios(dialect: BenchDialect, results: Map<number, SizeResult>): void {
  const columns = [...results.keys()];
  const cells = [...results.values()].map((r) => {
    const full = r.scenarios['page 1, per_page=5000'];
    const sparse = r.scenarios[SPARSE_SCENARIO];
    return `${ratio(r.compressed.identity, r.sparseBytes)} · ${ratio(sparse.rps, full.rps)} · ${ratio(full.p50, sparse.p50)}`;
  });
  console.log(
    `\n#### ${dialect}: per_page=5000 as ${SPARSE_FIELDS} against the whole page (bytes: target ≥ 3; req/s: target ≥ 1)\n\n` +
      `| | ${columns.map((c) => `${n(c)} payments: bytes whole ÷ sparse · req/s sparse ÷ whole · p50 whole ÷ sparse`).join(' | ')} |\n` +
      `|---|${columns.map(() => '---').join('|')}|\n| per_page=5000 | ${cells.join(' | ')} |`,
  );
}

/**
 * Exports of all payments against walking the same list by links.next at per_page=5000, per
 * dataset size: wall time, rows/s, the server's RSS peak over idle, /health while exporting.
 */
export function printExports(dialect: BenchDialect, results: Map<number, ExportsResult>): void {
  const sizes = [...results.keys()];
  if (sizes.length === 0) return;
  console.log(`\n#### ${dialect}: export of all payments against the walk at per_page=5000 (targets at 1M: ≥ 3× faster, RSS ≤ +100 MB, /health p99 < 50 ms); the walk by fetch, gzipped; each export gzipped as fetch asks, then zstd, then uncompressed\n`);
  console.log(`| | ${sizes.map((s) => `${n(s)} payments`).join(' | ')} |`);
  console.log(`|---|${sizes.map(() => '---').join('|')}|`);
  const all = sizes.map((s) => results.get(s)!);
  const row = (label: string, value: (r: ExportsResult) => string) => console.log(`| ${label} | ${all.map(value).join(' | ')} |`);
  row('walk by links.next, per_page=5000: wall · rows/s · server RSS peak over idle', (r) => `${fmt(r.walk.seconds, 2)} s · ${n(Math.round(r.walk.rows / r.walk.seconds))} rows/s · +${fmt(r.walkRssOverIdleMb)} MB`);
  for (const encoding of ['gzip', 'zstd', 'identity']) {
    for (const format of ['NDJSON', 'CSV'] as const) {
      const of = (r: ExportsResult) => r.runs.find((x) => x.format === format && x.encoding === encoding);
      if (!all.some(of)) continue;
      const line = (label: string, value: (x: ExportRun, r: ExportsResult) => string) => row(`export ${format}, ${encoding}: ${label}`, (r) => (of(r) ? value(of(r)!, r) : '–'));
      line('wall · rows/s · MB decoded', (x) => `${fmt(x.seconds, 2)} s · ${n(Math.round(x.rows / x.seconds))} rows/s · ${fmt(x.bytes / 1e6)} MB`);
      line('walk ÷ export (target ≥ 3)', (x, r) => `**${ratio(r.walk.seconds, x.seconds)}**`);
      line('server RSS peak over idle (target ≤ 100 MB)', (x) => `**+${fmt(x.rssOverIdleMb)} MB** (idle ${fmt(x.idleRssMb)} MB)`);
      line('/health p50 · p99 · max (target p99 < 50 ms)', (x) => `${x.health.p50} · **${x.health.p99}** · ${x.health.max} ms (${n(x.health.samples)} polls)`);
    }
  }
}
