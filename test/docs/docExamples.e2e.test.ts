import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { seed } from '../support/seedHelpers.ts';

const run = promisify(execFile);

/** A markdown file's fenced blocks, by language, with the line each starts on. */
function codeBlocks(markdown: string): Array<{ lang: string; code: string; line: number }> {
  const blocks: Array<{ lang: string; code: string; line: number }> = [];
  const fence = /^```(\w*)[^\n]*\n([\s\S]*?)^```/gm;
  for (const match of markdown.matchAll(fence)) {
    blocks.push({ lang: match[1], code: match[2], line: markdown.slice(0, match.index).split('\n').length });
  }
  return blocks;
}

/** Each curl in a block, in order, with the status it must answer; curls with their own -w write no status. */
function expectedStatuses(code: string): Array<number | '2xx/304'> {
  const lines = code.split('\n');
  const starts = lines.flatMap((line, i) => (/^\s*curl\s|\$\(curl\s/.test(line) ? [i] : []));
  return starts.flatMap((start, k) => {
    const span = lines.slice(start, starts[k + 1] ?? lines.length).join('\n');
    if (/\s(-w|--write-out)\s/.test(span)) return [];
    const expected = /#\s*expect\s+(\d{3})/.exec(span);
    return [expected ? Number(expected[1]) : '2xx/304'];
  });
}

/** The README and every guide in docs/: where the examples are. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(resolve('docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const blocks = DOCUMENTS.flatMap((file) => codeBlocks(readFileSync(resolve(file), 'utf8')).map((block) => ({ ...block, file })));
const shellBlocks = blocks.filter((b) => b.lang === 'sh' && /\bcurl\s/.test(b.code));
const clientBlocks = blocks.filter((b) => b.lang === 'ts' && b.code.includes("from '@payments/client'"));

describe('every curl and client example in the README and the guides runs against a real server', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let scratch: string;
  let substitute: (code: string) => string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'acme', 10, 200);
    const tenant = await findOrCreateTenant(database.db.kysely, 'acme');
    const key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    const kysely = database.db.kysely;
    const account = await kysely
      .selectFrom('accounts')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .where('status', '=', 'active')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const payment = await kysely
      .selectFrom('payments')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .where('status', '=', 'succeeded')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    // The examples' endpoints point at shop.example.com: no delivery leaves the test machine, and
    // allowing private targets saves it without asking DNS for the name (no network here).
    server = await startServer({ ...database.env, LOG_LEVEL: 'warn', WEBHOOK_SENDER: 'off', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    substitute = (code) =>
      code
        .replaceAll('http://127.0.0.1:3000', server.url)
        .replaceAll('apk_...', key)
        .replaceAll('$KEY', key)
        .replaceAll('acc_…', account.id)
        .replaceAll('pay_…', payment.id);
    scratch = mkdtempSync(join(tmpdir(), 'doc-examples-'));
    // curl reads this: every call reports its status on stderr, after its own output.
    writeFileSync(join(scratch, '.curlrc'), 'write-out = "%{stderr}@@status %{http_code}\\n"\n');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('finds the examples (curl in several sections of the README and the guides, and the client)', () => {
    expect(shellBlocks.length).toBeGreaterThanOrEqual(8);
    expect(clientBlocks.length).toBeGreaterThanOrEqual(1);
    expect(shellBlocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(1);
    expect(new Set(shellBlocks.map((b) => b.file)).size).toBeGreaterThanOrEqual(5);
  });

  it.each(shellBlocks.map((b) => [`sh block at ${b.file} line ${b.line}`, b] as const))('%s', async (_name, block) => {
    const script = `set -e -o pipefail\n${substitute(block.code)}`;
    const { stderr } = await run('bash', ['-c', script], { env: { ...process.env, CURL_HOME: scratch, HOME: scratch }, maxBuffer: 1 << 26 });
    const statuses = [...stderr.matchAll(/@@status (\d{3})/g)].map((m) => Number(m[1]));
    const expected = expectedStatuses(block.code);
    expect(statuses.length, stderr).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(0);
    statuses.forEach((status, i) => {
      const want = expected[i];
      if (want === '2xx/304') expect(status === 304 || (status >= 200 && status < 300), `curl #${i + 1}: ${status}`).toBe(true);
      else expect(status, `curl #${i + 1}`).toBe(want);
    });
  });

  it.each(clientBlocks.map((b) => [`client example at ${b.file} line ${b.line}`, b] as const))('%s', async (_name, block) => {
    // Inside the repository, so '@payments/client' resolves as it does for a user of the workspace.
    mkdirSync(resolve('test-output'), { recursive: true });
    const file = resolve('test-output', `example-${block.file.replaceAll(/[/.]/g, '-')}-${block.line}.ts`);
    writeFileSync(file, substitute(block.code));
    // The workspace's client is its TypeScript source under the `payments-source` condition.
    const { stdout } = await run(process.execPath, ['--conditions=payments-source', file], { env: { ...process.env }, maxBuffer: 1 << 26 });
    expect(stdout).toMatch(/total/);
  });
});
