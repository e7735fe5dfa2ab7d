import { readFileSync } from 'node:fs';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The groups a create's CPU is told apart by (docs/performance.md, "Where a create's CPU goes"),
 * in the order they are tried on each frame: a frame's file (or, for native code with no file,
 * its function's name) names its group.
 */
const GROUPS: Array<[string, (url: string, fn: string) => boolean]> = [
  ['logging (pino)', (u) => /node_modules\/(pino|fastify\/lib\/logger)/.test(u)],
  ['idempotency (key, fingerprint, stored answer)', (u) => /src\/idempotency\/|fast-json-stable-stringify/.test(u)],
  ['Kysely: building and compiling statements', (u) => /node_modules\/kysely\/dist\/esm\/(operation-node|query-builder|query-compiler|parser|expression|raw-builder|util)/.test(u)],
  ['pg: protocol, parsing rows', (u) => /node_modules\/(pg|pg-protocol|pg-types|postgres-)/.test(u)],
  ['SQLite driver', (u) => /src\/db\/(nodeSqliteDialect|sqlite)/.test(u) || /node:sqlite/.test(u)],
  ['Kysely: driver, transactions, plugins', (u) => /node_modules\/kysely\//.test(u)],
  ['card checks', (u) => /src\/payments\/card\//.test(u)],
  ['events (outbox JSON, deliveries)', (u) => /src\/events\//.test(u)],
  ['counts and buckets', (u) => /src\/counts\//.test(u)],
  ['payment row and its JSON', (u) => /src\/payments\//.test(u)],
  ['validation and serialization (ajv, fast-json-stringify)', (u) => /node_modules\/(ajv|fast-json-stringify|@fastify\/ajv|fast-uri|typebox|@sinclair)|fastify\/lib\/(validation|schemas|error-serializer)/.test(u)],
  ['API key (auth)', (u) => /src\/auth\//.test(u)],
  ['HTTP and Fastify', (u) => /node_modules\/(fastify|find-my-way|light-my-request|avvio|@fastify)|node:_http|node:http|src\/http\/|src\/limits\//.test(u)],
];

/** A frame of the server's start (loading modules, compiling route schemas): anything under it is no create's cost. */
const STARTUP = (url: string, fn: string) =>
  /^node:internal\/(modules|bootstrap|deps\/amaro)|node_modules\/avvio\//.test(url) || /^(compileSourceTextModule|wrapSafe|internalModuleStat)$/.test(fn);

const NATIVE: Record<string, string> = {
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 and native, not attributed',
};

/**
 * A `--cpu-prof` profile's busy time by group: each sample goes to the innermost frame of its
 * stack that a group claims (so JSON.stringify called from src/idempotency counts as
 * idempotency, a socket write called from pg as pg). Samples no group claims: 'other'.
 */
export function profileGroups(profilePath: string, handlerFile = /src\/payments\/paymentWriteRoutes\.ts$/): { busyMs: number; groups: Array<{ group: string; ms: number; share: number }> } {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const groupOf = new Map<number, string>();
  const startup = new Map<number, boolean>();
  const inStartup = (id: number | undefined): boolean => {
    if (id === undefined) return false;
    let known = startup.get(id);
    if (known === undefined) {
      const { functionName, url } = byId.get(id)!.callFrame;
      startup.set(id, (known = STARTUP(url, functionName) || inStartup(parent.get(id))));
    }
    return known;
  };
  const classify = (id: number): string => {
    const known = groupOf.get(id);
    if (known) return known;
    if (inStartup(id)) {
      groupOf.set(id, 'the server starting');
      return 'the server starting';
    }
    const { functionName, url } = byId.get(id)!.callFrame;
    let group = Object.hasOwn(NATIVE, functionName) ? NATIVE[functionName] : undefined;
    if (!group) group = GROUPS.find(([, test]) => test(url, functionName))?.[0] ?? '';
    if (!group) {
      const up = parent.get(id);
      group = up === undefined ? 'other' : classify(up);
    }
    groupOf.set(id, group);
    return group;
  };
  // Only from the first sample in a request's handler on: the server's start (loading modules,
  // compiling schemas) is not a create's cost.
  const inHandler = (id: number | undefined): boolean => id !== undefined && (handlerFile.test(byId.get(id)!.callFrame.url) || inHandler(parent.get(id)));
  const first = profile.samples.findIndex((id) => inHandler(id));
  const ms = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (i < first || byId.get(id)!.callFrame.functionName === '(idle)') return;
    const micros = profile.timeDeltas[i] ?? 0;
    busy += micros;
    const group = classify(id);
    ms.set(group, (ms.get(group) ?? 0) + micros / 1000);
  });
  const groups = [...ms].sort((a, b) => b[1] - a[1]).map(([group, t]) => ({ group, ms: t, share: t / (busy / 1000) }));
  return { busyMs: busy / 1000, groups };
}

if (import.meta.main) {
  const [path, creates] = process.argv.slice(2);
  const { busyMs, groups } = profileGroups(path);
  const per = creates ? Number(creates) : 0;
  console.log(`busy ${busyMs.toFixed(0)} ms${per ? `, ${((busyMs / per) * 1000).toFixed(0)} µs per create` : ''}`);
  for (const g of groups) console.log(`${(g.share * 100).toFixed(1).padStart(5)} %  ${per ? `${((g.ms / per) * 1000).toFixed(0).padStart(5)} µs  ` : ''}${g.group}`);
}
