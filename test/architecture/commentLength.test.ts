import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
/** Migrations are frozen once released, so their comments stay as written. */
const EXCLUDED = [join(SRC, 'db/migrations')];
/** A comment says why in at most this many lines and links the decision record for the rest. */
const MAX_LINES = 5;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (EXCLUDED.includes(path)) return [];
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every comment of a file, read by the compiler's scanner so strings and regexes are not mistaken for comments. */
function commentRanges(file: ts.SourceFile): ts.CommentRange[] {
  const text = file.getFullText();
  const seen = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node) => {
    for (const range of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) seen.set(range.pos, range);
    for (const range of ts.getTrailingCommentRanges(text, node.getEnd()) ?? []) seen.set(range.pos, range);
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}

interface Block {
  line: number;
  lines: number;
}

/**
 * A block comment's lines of text: those between its markers, plus the opening and closing lines
 * when they hold text. A run of `//` lines on consecutive lines is one block, a line each; a `//`
 * after code on its line is a block of its own.
 */
function commentBlocks(file: ts.SourceFile): Block[] {
  const text = file.getFullText();
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
  const blocks: Block[] = [];
  let run: { first: number; last: number } | undefined;
  const closeRun = () => {
    if (run) blocks.push({ line: run.first + 1, lines: run.last - run.first + 1 });
    run = undefined;
  };
  for (const range of commentRanges(file)) {
    const line = lineOf(range.pos);
    const ownLine = text.slice(file.getPositionOfLineAndCharacter(line, 0), range.pos).trim() === '';
    if (range.kind === ts.SyntaxKind.SingleLineCommentTrivia && !ownLine) {
      closeRun();
      blocks.push({ line: line + 1, lines: 1 });
    } else if (range.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
      if (run && line === run.last + 1) run.last = line;
      else {
        closeRun();
        run = { first: line, last: line };
      }
    } else {
      closeRun();
      const rows = text.slice(range.pos, range.end).split('\n');
      const opening = rows[0].replace(/^\/\*\*?/, '').trim() !== '' ? 1 : 0;
      const closing = rows.length > 1 && rows[rows.length - 1].replace(/\*\/$/, '').trim() !== '' ? 1 : 0;
      blocks.push({ line: line + 1, lines: rows.length === 1 ? 1 : rows.length - 2 + opening + closing });
    }
  }
  closeRun();
  return blocks;
}

describe('comments in src/ (migrations aside)', () => {
  it(`hold at most ${MAX_LINES} lines each, saying why and linking a decision record for the figures`, () => {
    const long = sourceFiles(SRC).flatMap((path) => {
      const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
      return commentBlocks(file)
        .filter((block) => block.lines > MAX_LINES)
        .map((block) => `${relative(ROOT, path)}:${block.line} (${block.lines} lines)`);
    });
    expect(long).toEqual([]);
  });

  it('counts a block the way the rule reads', () => {
    const blocksOf = (source: string) => commentBlocks(ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true)).map((b) => b.lines);
    expect(blocksOf('/** one */\nconst a = 1;')).toEqual([1]);
    expect(blocksOf('/**\n * a\n *\n * b\n */\nconst a = 1;')).toEqual([3]);
    expect(blocksOf('/* a\n b */\nconst a = 1;')).toEqual([2]);
    expect(blocksOf('// a\n// b\n// c\nconst a = 1; // d\n// e\n\n// f\n')).toEqual([3, 1, 1, 1]);
    expect(blocksOf('type T =\n  | 1 // one\n  | 2 // two\n  | 3; // three\n')).toEqual([1, 1, 1]);
    expect(blocksOf("const url = 'http://x'; const re = /\\/\\//;\n")).toEqual([]);
  });
});
