import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileCycles, folderCycles, folderEdges, srcImports } from './importGraph.ts';

/**
 * The folders of src/, lowest first. A folder imports only from layers below its own: never
 * upwards, never a neighbour in its own layer. `core` and `config` import nothing of ours.
 */
const LAYERS: string[][] = [
  ['core', 'config'],
  ['db'],
  ['representations'],
  // Lists, lowest part first; the rest of src/ enters by lists/index.ts alone (below).
  ['lists/counters', 'lists/envelope'],
  ['lists/request'],
  ['lists/plan'],
  ['lists/sql'],
  ['lists'],
  ['exports'],
  ['auth', 'idempotency', 'events'],
  ['accounts'],
  ['payments'],
  ['webhooks'],
  ['reference', 'limits', 'metrics', 'seed', 'versioning'],
  ['http'],
  ['cli'],
];

const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));
const imports = srcImports();
const describeImport = (i: { from: string; to: string }) => `${i.from} → ${i.to}`;

describe('the import graph of src/', () => {
  it('places every folder in a layer', () => {
    const unplaced = [...new Set(imports.flatMap((i) => [i.fromFolder, i.toFolder]))].filter((folder) => layerOf(folder) === -1);
    expect(unplaced).toEqual([]);
  });

  it('has no import pointing upwards or sideways between folders', () => {
    const wrong = imports.filter((i) => i.fromFolder !== i.toFolder && layerOf(i.toFolder) >= layerOf(i.fromFolder));
    expect(wrong.map(describeImport)).toEqual([]);
  });

  it('lets the rest of src/ into lists by its entry file alone', () => {
    const past = imports.filter((i) => !i.from.startsWith('lists/') && i.to.startsWith('lists/') && i.to !== 'lists/index.ts');
    expect(past.map(describeImport)).toEqual([]);
    expect(imports.filter((i) => i.from.startsWith('lists/') && i.to === 'lists/index.ts').map(describeImport)).toEqual([]);
  });

  it('has no cycle between folders, nor between files', () => {
    expect(folderCycles(folderEdges(imports))).toEqual([]);
    expect(fileCycles(imports)).toEqual([]);
  });

  // An earlier migration is frozen too, so a migration may reuse its SQL (0018 rebuilds the buckets 0007 defined).
  it('keeps migrations frozen: they import no code of ours but earlier migrations, only the schema’s types', () => {
    const live = imports.filter(
      (i) => i.from.startsWith('db/migrations/') && !(i.typeOnly && i.to === 'db/schema.ts') && !(i.to.startsWith('db/migrations/') && i.to < i.from),
    );
    expect(live.map(describeImport)).toEqual([]);
  });

  it('leaves the dialect to the data layers: features and the HTTP app never ask which database they are on', () => {
    const asking = [...new Set(imports.map((i) => i.from))]
      .filter((file) => ['accounts', 'auth', 'idempotency', 'payments', 'http'].includes(file.split('/')[0]))
      .filter((file) => /\.dialect\b|\bDialect\b/.test(readFileSync(resolve(import.meta.dirname, '../../src', file), 'utf8')));
    expect(asking).toEqual([]);
  });

  it('finds the imports it checks (a graph read wrongly would pass everything)', () => {
    expect(imports.length).toBeGreaterThan(200);
    expect(imports.map(describeImport)).toContain('lists/listHandler.ts → lists/runListPage.ts');
    expect(imports.find((i) => i.from === 'db/migrations/0001_initial.ts')?.typeOnly).toBe(true);
  });
});
