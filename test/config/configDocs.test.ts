import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_GUIDE, ENV_EXAMPLE, envExample, guideWithConfigTable } from '../../scripts/generate/configDocs.ts';
import { CONFIG_VARIABLES } from '../../src/config/configVariables.ts';

describe('the documentation of the configuration', () => {
  it('is the table in docs/operations.md generated from the schema (npm run generate rewrites it)', () => {
    const guide = readFileSync(CONFIG_GUIDE, 'utf8');
    expect(guide).toBe(guideWithConfigTable(guide));
    for (const v of CONFIG_VARIABLES) expect(guide).toContain(`| \`${v.name}\` |`);
  });

  it('is .env.example generated from the schema, every variable in it', () => {
    const text = readFileSync(ENV_EXAMPLE, 'utf8');
    expect(text).toBe(envExample());
    for (const v of CONFIG_VARIABLES) expect(text).toMatch(new RegExp(`^#? ?${v.name}=`, 'm'));
  });

  it('lists every variable the source reads from process.env', async () => {
    const { execFileSync } = await import('node:child_process');
    const read = execFileSync('grep', ['-rhoE', 'process\\.env\\.[A-Z_]+', 'src'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((m) => m.slice('process.env.'.length));
    const known = new Set(CONFIG_VARIABLES.map((v) => v.name));
    // libpq's own defaults, read only to name the user in a hint
    const unknown = [...new Set(read)].filter((name) => !known.has(name) && !['PGUSER', 'USER'].includes(name));
    expect(unknown).toEqual([]);
  });
});
