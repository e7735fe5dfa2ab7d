import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  /** `name (file:line)`, the file relative to the repository or the package it belongs to. */
  name: string;
  /** Share of the busy time (all samples but idle). */
  share: number;
  ms: number;
}

function where(url: string, line: number): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  const file = inPackage ? `${inPackage[1]}/${inPackage[2]}` : path.startsWith('node:') ? path : relative(process.cwd(), path);
  return ` (${file}:${line + 1})`;
}

/** The functions a `--cpu-prof` profile spent the most self time in, busiest first; idle time left out. */
export function topFunctions(profilePath: string, count: number): { busyMs: number; top: FunctionTime[] } {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') return;
    const micros = profile.timeDeltas[i] ?? 0;
    busy += micros;
    const key = `${functionName || '(anonymous)'}${where(url, lineNumber)}`;
    self.set(key, (self.get(key) ?? 0) + micros);
  });
  const top = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => ({ name, share: micros / busy, ms: micros / 1000 }));
  return { busyMs: busy / 1000, top };
}
