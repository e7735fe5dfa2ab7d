import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiDescription, apiVersion, readChangelog } from '../../src/reference/apiDescription.ts';
import { changelogHtml, versionAnchor } from '../../src/reference/changelogPage.ts';

describe('CHANGELOG.md', () => {
  const changelog = readFileSync('CHANGELOG.md', 'utf8');

  it('is in Keep a Changelog form: an Unreleased section, then versions with ISO dates, newest first', () => {
    expect(changelog).toMatch(/^# Changelog\n/);
    expect(changelog).toContain('## [Unreleased]');
    const releases = [...changelog.matchAll(/^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)];
    expect(releases.length).toBeGreaterThanOrEqual(2);
    const versions = releases.map((r) => Number(r[1]) * 1e6 + Number(r[2]) * 1e3 + Number(r[3]));
    expect(versions).toEqual([...versions].sort((a, b) => b - a));
    const dates = releases.map((r) => r[4]);
    expect(dates).toEqual([...dates].sort().reverse());
    for (const [, a, b, c] of releases) expect(changelog).toContain(`[${a}.${b}.${c}]: `);
  });

  it('records that the credit card payment endpoints were added', () => {
    const entry = /^## \[[^\]]+\][^\n]*\n(?:(?!^## )[\s\S])*?credit card payment endpoints[^\n]*\n[^\n]*/im.exec(changelog)?.[0] ?? '';
    for (const endpoint of ['GET /v3/payments', 'GET /v3/accounts/{account}/payments', 'GET /v3/payments/{payment}']) expect(entry).toContain(endpoint);
  });

  it('is on a page of its own that the OpenAPI document links to, and its newest release is the document version', () => {
    expect(readChangelog()).toBe(changelog);
    expect(apiDescription()).toContain('[Changelog](/docs/changelog)');
    expect(apiDescription()).not.toContain('## [Unreleased]');
    expect(apiVersion()).toBe(/^## \[(\d+\.\d+\.\d+)\]/m.exec(changelog)![1]);
  });

  it('links each version to its own heading on that page, not to a placeholder site', () => {
    const html = changelogHtml(changelog);
    const definitions = [...changelog.matchAll(/^\[([^\]]+)\]: (\S+)$/gm)];
    expect(definitions.length).toBeGreaterThanOrEqual(3);
    for (const [, label, target] of definitions) {
      expect(target).toBe(`#${versionAnchor(label)}`);
      expect(html).toContain(`id="${versionAnchor(label)}"`);
    }
    expect(changelog).not.toMatch(/example\.(com|org)\/|github\.com\/example/);
    expect(html).toContain('<a href="https://keepachangelog.com/en/1.1.0/">Keep a Changelog</a>');
  });

  it('has the one version number: its newest release is the server package’s and the client’s', () => {
    const server = JSON.parse(readFileSync('package.json', 'utf8')).version;
    const client = JSON.parse(readFileSync('client/package.json', 'utf8')).version;
    expect(server).toBe(apiVersion());
    expect(client).toBe(apiVersion());
  });
});
