import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** README.md and every markdown file under docs/, as paths from the repository's root. */
function documents(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? under(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return ['README.md', ...under('docs')];
}

/** The text outside fenced code blocks, line by line (a `#` inside a shell block is no heading). */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6} (.+?)\s*#*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replaceAll(/\[([^\]]*)\]\([^)]*\)/g, '$1').replaceAll(/[`*]/g, '');
    const base = text
      .toLowerCase()
      .replaceAll(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every inline link's target in a file's prose (not in code spans or blocks), with its line. */
function links(markdown: string): Array<{ target: string; line: number }> {
  return proseLines(markdown).flatMap((line, i) =>
    [...line.replaceAll(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ target: m[1], line: i + 1 })),
  );
}

const relativeLinks = documents().flatMap((file) =>
  links(readFileSync(join(ROOT, file), 'utf8'))
    .filter(({ target }) => !/^[a-z][a-z+.-]*:/i.test(target))
    .map((link) => ({ ...link, file })),
);

describe('the links of the README and the guides', () => {
  it('are found: between the guides, back to the README, and to anchors', () => {
    expect(relativeLinks.length).toBeGreaterThan(20);
    expect(relativeLinks.filter(({ target }) => target.includes('#')).length).toBeGreaterThan(5);
    expect(relativeLinks.some(({ file, target }) => file === 'README.md' && target.startsWith('docs/'))).toBe(true);
  });

  it.each(relativeLinks.map((link) => [`${link.file} → ${link.target}`, link] as const))('%s resolves', (_name, { file, target }) => {
    const [path, anchor] = target.split('#', 2);
    const targetFile = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURI(path));
    expect(relative(ROOT, targetFile).startsWith('..'), 'stays inside the repository').toBe(false);
    expect(existsSync(targetFile), `${relative(ROOT, targetFile)} exists`).toBe(true);
    if (anchor !== undefined) {
      expect(targetFile.endsWith('.md'), 'an anchor points into markdown').toBe(true);
      expect([...headingAnchors(readFileSync(targetFile, 'utf8'))]).toContain(anchor);
    }
  });

  it('names anchors as GitHub does', () => {
    const anchors = headingAnchors(
      '# A five-minute tour\n## Invalid values (422)\n## Exports: a whole list\n```sh\n# not a heading\n```\n## `PG_POOLER`\n## Exports: a whole list\n',
    );
    expect([...anchors]).toEqual(['a-five-minute-tour', 'invalid-values-422', 'exports-a-whole-list', 'pg_pooler', 'exports-a-whole-list-1']);
  });
});
