import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of `src/`, folder by folder: what the layering test checks. Read with the
 * TypeScript compiler's own pre-processor, so `import type`, re-exports and `import()` count
 * like any other import.
 */
export interface Import {
  from: string;
  to: string;
  fromFolder: string;
  toFolder: string;
  /** `import type …` / `export type … from`: erased at run time. */
  typeOnly: boolean;
}

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * `src/payments/paymentWrites.ts` → `payments`; a file directly under src/ is its own folder
 * (`config.ts`). Lists are one feature of parts, each a folder of its own: `src/lists/sql/keyset.ts`
 * → `lists/sql`, `src/lists/index.ts` → `lists`.
 */
export function folderOf(file: string): string {
  const [top, sub, ...rest] = relative(SRC, file).split('/');
  return top === 'lists' && rest.length > 0 ? `${top}/${sub}` : top;
}

export function srcImports(): Import[] {
  const imports: Import[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName, pos } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      // The statement this specifier ends: from the nearest `import` or `export` before it (it may span lines).
      const statementStart = Math.max(text.lastIndexOf('import', pos), text.lastIndexOf('export', pos));
      const typeOnly = /^(import|export)\s+type\s/.test(text.slice(statementStart, pos));
      const target = resolve(dirname(file), fileName);
      const from = relative(SRC, file);
      const to = relative(SRC, target);
      imports.push({ from, to, fromFolder: folderOf(file), toFolder: folderOf(target), typeOnly });
    }
  }
  return imports;
}

/** Folder-to-folder edges (a folder's imports of itself left out). */
export function folderEdges(imports: Import[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { fromFolder, toFolder } of imports) {
    if (!edges.has(fromFolder)) edges.set(fromFolder, new Set());
    if (!edges.has(toFolder)) edges.set(toFolder, new Set());
    if (fromFolder !== toFolder) edges.get(fromFolder)!.add(toFolder);
  }
  return edges;
}

/** File-to-file edges. */
function fileEdges(imports: Import[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    if (!edges.has(from)) edges.set(from, new Set());
    if (!edges.has(to)) edges.set(to, new Set());
    edges.get(from)!.add(to);
  }
  return edges;
}

/** Files that import each other, directly or through others. */
export function fileCycles(imports: Import[]): string[][] {
  return cycles(fileEdges(imports));
}

/** Folders that import each other, directly or through others. */
export function folderCycles(edges: Map<string, Set<string>>): string[][] {
  return cycles(edges);
}

/** Strongly connected components of more than one node (Tarjan): the cycles. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (let top = ''; top !== node; ) {
        top = stack.pop()!;
        onStack.delete(top);
        component.push(top);
      }
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}
