import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Every markdown file under docs/, as paths from the repository's root. */
function guides(dir = 'docs'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? guides(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  );
}

/** The headings of a file, outside fenced code blocks. */
function headings(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && /^#{1,6} /.test(line);
  });
}

/** A heading that dates itself or names where the work was done, as a lab notebook's do. */
const DIARY_HEADING = /\b\d{4}-\d{2}-\d{2}\b|\bissue \d+|\bbranch\b|\bsession\b|\bround of\b|\b(first|second|third|fourth|fifth) round\b/i;

/** A duration, a rate or a speed-up: `12 ms`, `1.5 s`, `3×`, `410/s`. */
const TIMING = /\d\s?(ms|µs)\b|\d\s(s|min|minutes|seconds)\b|\d\s?×|\/s\b/;

const DECISION_FILE = /^\d{4}-[a-z0-9]+(-[a-z0-9]+)*\.md$/;

describe('the docs are a reference, not a lab notebook', () => {
  it('no heading of the README or a guide names a date, an issue, a branch, a session or a round', () => {
    const diary = ['README.md', ...guides()].flatMap((file) =>
      headings(read(file))
        .filter((h) => DIARY_HEADING.test(h))
        .map((h) => `${file}: ${h}`),
    );
    expect(diary).toEqual([]);
  });

  it('performance.md is at most 300 lines and opens with its contents, each entry a heading of the page', () => {
    const page = read('docs/performance.md');
    expect(page.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
    const contents = /^## Contents\n\n((?:- \[.+\]\(#.+\)\n)+)/m.exec(page);
    expect(contents, 'a "## Contents" list of links to its sections').not.toBeNull();
    const listed = [...(contents?.[1] ?? '').matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    const sections = headings(page)
      .filter((h) => h.startsWith('## ') && h !== '## Contents')
      .map((h) =>
        h
          .slice(3)
          .toLowerCase()
          .replaceAll(/[^\p{L}\p{N} -]/gu, '')
          .replaceAll(' ', '-'),
      );
    expect(listed).toEqual(sections);
  });

  it('each design decision is a numbered record of at most 40 lines: context, decision, figures, what was rejected', () => {
    const records = readdirSync(join(ROOT, 'docs/decisions')).filter((name) => name !== 'README.md');
    expect(records.length).toBeGreaterThanOrEqual(10);
    for (const name of records) {
      expect(name).toMatch(DECISION_FILE);
      const text = read(`docs/decisions/${name}`);
      expect(text.trimEnd().split('\n').length, name).toBeLessThanOrEqual(40);
      expect(text.startsWith(`# ${name.slice(0, 4)}. `), `${name} opens with "# ${name.slice(0, 4)}. <title>"`).toBe(true);
      expect(
        headings(text).filter((h) => h.startsWith('## ')),
        name,
      ).toEqual(['## Context', '## Decision', '## Figures', '## Rejected']);
    }
  });

  it('the decisions index lists every record, in number order', () => {
    const index = read('docs/decisions/README.md');
    const listed = [...index.matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((m) => m[1]);
    const records = readdirSync(join(ROOT, 'docs/decisions'))
      .filter((name) => DECISION_FILE.test(name))
      .sort();
    expect(listed).toEqual(records);
  });

  it('the changelog’s Unreleased section says each change in one line, with no timings', () => {
    const changelog = read('CHANGELOG.md');
    const unreleased = /^## \[Unreleased\]\n([\s\S]*?)^## \[/m.exec(changelog)?.[1] ?? '';
    const lines = unreleased.split('\n').filter((line) => line.trim() !== '');
    expect(lines.filter((line) => !/^(### \w+|- .+)$/.test(line))).toEqual([]);
    expect(lines.filter((line) => TIMING.test(line))).toEqual([]);
  });
});
