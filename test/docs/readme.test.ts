import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync('README.md', 'utf8');
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } }> };

/** The lowest major a `>=N` engines range takes; undefined for other forms (none of them excludes Node 20 here). */
const lowestMajor = (range: string) => Number(/^>=\s*(\d+)(\.\d+)*$/.exec(range.trim())?.[1] ?? Number.NaN);

describe('the README, where a new user starts', () => {
  it('says how to choose the port and the address', () => {
    expect(readme).toMatch(/^PORT=\d+ npm start/m);
    expect(readme).toMatch(/^HOST=0\.0\.0\.0 .*npm start/m);
  });

  it('explains every EBADENGINE warning `npm install` prints on Node 20, by package', () => {
    const warned = Object.entries(lock.packages)
      .filter(([, entry]) => lowestMajor(entry.engines?.node ?? '') > 20)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    expect(warned.length).toBeGreaterThan(0);
    const explained = /npm install` prints (\w+) `EBADENGINE` warnings, for ([^(]+)\(/.exec(readme.replace(/\s+/g, ' '));
    expect(explained, 'the README says which packages warn').not.toBeNull();
    const named = [...explained![2].matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort();
    expect(named).toEqual(warned);
    expect(explained![1]).toBe(['no', 'one', 'two', 'three', 'four'][warned.length]);
  });
});
