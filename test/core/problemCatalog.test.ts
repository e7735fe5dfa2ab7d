import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CATALOG, TYPE_BASE, type ProblemTypeEntry } from '../../src/core/problemCatalog.ts';
import { apiDescription } from '../../src/reference/apiDescription.ts';
import { problemExample, problemResponse } from '../../src/reference/problemResponses.ts';
import { CLIENT_RETRY_RULES, clientRetryRules } from '../../scripts/generate/clientRetryRules.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const catalog = Object.entries(PROBLEM_CATALOG) as Array<[string, ProblemTypeEntry]>;

function sourceText(dir: string): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((entry) => (entry.isDirectory() ? sourceText(join(dir, entry.name)) : entry.name.endsWith('.ts') ? readFileSync(join(dir, entry.name), 'utf8') : ''))
    .join('\n');
}

const src = sourceText(join(ROOT, 'src'));
/** The problem types src/ makes: `new Problem('<kind>'` is the only way to make one. */
const thrown = new Set([...src.matchAll(/new Problem\(\s*'([a-z-]+)'/g)].map((m) => m[1]));

/** The errors guide's table of problem types: name → [status, title]. */
function guideTable(): Map<string, [number, string]> {
  const guide = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  const rows = [...guide.matchAll(/^\| `([a-z-]+)` \| (\d{3}) \| ([^|]+) \|/gm)];
  return new Map(rows.map((m) => [m[1], [Number(m[2]), m[3].trim()]]));
}

describe('the problem catalog', () => {
  it('has every problem type src/ makes, and src/ makes every type it has', () => {
    expect(thrown.size).toBeGreaterThan(10);
    expect([...thrown].sort()).toEqual(catalog.map(([kind]) => kind).sort());
  });

  it('is the only place a problem type, title or status is written: no other type URI in src/', () => {
    const uris = [...src.matchAll(/https?:\/\/[^\s'"`]*(problems|httpstatuses)[^\s'"`]*/g)].map((m) => m[0]);
    expect(uris.filter((uri) => uri !== TYPE_BASE)).toEqual([]);
    expect(src.match(/new Problem\(\s*\{/g)).toBeNull();
  });

  it('is listed in docs/errors.md, name, status and title, and nothing else is', () => {
    const table = guideTable();
    expect([...table.keys()].sort()).toEqual(catalog.map(([kind]) => kind).sort());
    for (const [kind, entry] of catalog) expect(table.get(kind), kind).toEqual([entry.status, entry.title]);
  });

  it('is described in the OpenAPI document, and every problem response documents each type of its status', () => {
    const description = apiDescription();
    for (const [kind, entry] of catalog) {
      expect(description, kind).toContain(`| \`${kind}\` | ${entry.status} | ${entry.title} |`);
      expect(problemResponse(entry.status).description, kind).toContain(`\`${kind}\`: ${entry.description}`);
      expect(problemExample(kind as keyof typeof PROBLEM_CATALOG)).toMatchObject({ type: `${TYPE_BASE}${kind}`, status: entry.status, title: entry.title });
    }
  });

  it('documents Retry-After on every status that has a retryable type', () => {
    for (const [kind, entry] of catalog) {
      if (entry.retryable) expect(problemResponse(entry.status).headers, kind).toHaveProperty('retry-after');
    }
  });

  it('gives the client its retry rules (client/src/retryRules.ts is generated from it and current)', () => {
    expect(readFileSync(CLIENT_RETRY_RULES, 'utf8')).toBe(clientRetryRules());
    expect(clientRetryRules()).toContain(`${TYPE_BASE}idempotency-in-flight`);
    expect(clientRetryRules()).toContain('new Set([429, 503])');
  });
});
