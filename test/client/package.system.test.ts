import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { seed } from '../support/seedHelpers.ts';

const run = promisify(execFile);
const CLIENT = resolve(import.meta.dirname, '../../client');
const TSC = resolve(import.meta.dirname, '../../node_modules/typescript/bin/tsc');
/** The machine's own Node (20 here), beside the project's pinned one that runs this test. */
const SYSTEM_NODE = '/usr/bin/node';

/** A user's script: every method of the client, typed against the installed package only. */
const SCRIPT = `
import { ApiProblem, PaymentsClient, type Account, type Payment } from '@payments/client';

const [baseUrl, apiKey] = process.argv.slice(2);
const client = new PaymentsClient({ baseUrl, apiKey, timeoutMs: 10_000 });
const card = { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2031, cvc: '123' };
const out: Record<string, unknown> = { node: process.versions.node };

const page = await client.accounts.list({ sort: '-created_at', perPage: 2 }).page(1);
out.accountsTotal = page.meta.total;
const account: Account = await client.accounts.create({ name: 'Packed Client', email: 'packed@example.com', currency: 'EUR' });
out.gotAccount = (await client.accounts.get(account.id)).id === account.id;
out.renamed = (await client.accounts.update(account.id, { name: 'Renamed' })).name;
const payment: Payment = await client.payments.create({ account_id: account.id, amount: 2500, currency: 'EUR', capture: false, card });
out.authorized = payment.status;
out.captured = (await client.payments.capture(payment.id, { amount: 2000 })).status;
out.refunded = (await client.payments.refund(payment.id, { amount: 500, reason: 'packed' })).status;
const second = await client.payments.create({ account_id: account.id, amount: 100, currency: 'EUR', capture: false, card }, { idempotencyKey: \`packed-\${process.versions.node}\` });
out.canceled = (await client.payments.cancel(second.id)).status;
out.gotPayment = (await client.payments.get(payment.id)).amount_refunded;
let walked = 0;
for await (const p of client.accounts.payments(account.id, { perPage: 1 })) walked += p.amount;
out.walked = walked;
out.listed = (await client.payments.list({ filter: { account_id: account.id, status: ['canceled'] } }).toArray()).length;
const sparse = await client.payments.list({ fields: { payments: ['id', 'amount'], accounts: ['name'] }, expand: ['account'], perPage: 1 }).page(1);
out.sparse = \`\${Object.keys(sparse.data[0]).join(',')}:\${typeof sparse.data[0].account.name}\`;
const trimmed = await client.payments.get(payment.id, { fields: { payments: ['status'] } });
out.sparseOne = trimmed.status;
// @ts-expect-error a field not asked for is not in the type
out.notAsked = trimmed.amount;
const empty = await client.accounts.create({ name: 'To delete', email: 'gone@example.com', currency: 'USD' });
await client.accounts.delete(empty.id);
try {
  await client.accounts.get(empty.id);
} catch (error) {
  out.deleted = error instanceof ApiProblem ? error.status : 'not a problem';
}
try {
  await client.payments.create({ account_id: account.id, amount: 0, currency: 'EUR', card: { ...card, cvc: '1' } });
} catch (error) {
  out.codes = error instanceof ApiProblem ? error.codes : undefined;
}
const controller = new AbortController();
controller.abort(new Error('cancelled by the caller'));
try {
  await client.payments.list({}, { signal: controller.signal }).page(1);
} catch (error) {
  out.aborted = (error as Error).message;
}
try {
  await client.payments.list({ perPage: 5000 }, { timeoutMs: 1 }).page(1);
} catch (error) {
  out.timedOut = (error as Error).name;
}
console.log(JSON.stringify(out));
`;

describe('the client as a package: packed, installed elsewhere, type-checked and run on Node 24 and 20', { timeout: 180_000 }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let key: string;
  let project: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'acme', 3, 10);
    key = await createApiKey(database.db.kysely, (await findOrCreateTenant(database.db.kysely, 'acme')).id, ['read', 'write']);
    server = await startServer({ ...database.env, LOG_LEVEL: 'warn' });
    // Outside the repository: nothing of the checkout can be found from here.
    project = mkdtempSync(join(tmpdir(), 'payments-client-user-'));
    await run('npm', ['pack', '--pack-destination', project, '--silent'], { cwd: CLIENT });
    const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack made no tarball');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'client-user', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--offline', `./${tarball}`], { cwd: project });
    writeFileSync(join(project, 'main.ts'), SCRIPT);
    const tsconfig = {
      compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [], strict: true, outDir: 'out' },
      files: ['main.ts', 'env.d.ts'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    // The one Node global the script reads; the client itself needs only what browsers have.
    writeFileSync(join(project, 'env.d.ts'), 'declare const process: { argv: string[]; versions: { node: string } };\n');
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('ships built JavaScript with its .d.ts and nothing of the server', async () => {
    const { stdout } = await run('tar', ['-tzf', join(project, readdirSync(project).find((f) => f.endsWith('.tgz')) ?? '')]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('type-checks a script that uses every method against the installed package alone', async () => {
    await run(process.execPath, [TSC, '-p', project]);
    // The types are real, not `any`: a wrong field type fails the check.
    const broken = SCRIPT.replace("currency: 'EUR', capture: false", "currency: 'EUR', capture: 'no'");
    writeFileSync(join(project, 'main.ts'), broken);
    try {
      const failure = await run(process.execPath, [TSC, '-p', project, '--noEmit']).then(
        () => undefined,
        (error: { stdout: string }) => error.stdout,
      );
      expect(failure).toMatch(/main\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean \| undefined'/);
    } finally {
      writeFileSync(join(project, 'main.ts'), SCRIPT);
    }
  });

  it.each([
    ['the project’s Node', process.execPath],
    ['the machine’s Node', SYSTEM_NODE],
  ])('runs every method against a real server on %s', async (_name, node) => {
    await run(process.execPath, [TSC, '-p', project]);
    const { stdout } = await run(node, [join(project, 'out', 'main.js'), server.url, key], { cwd: project }).catch((error) => {
      throw new Error(`${node}: ${error.stderr}`);
    });
    const out = JSON.parse(stdout);
    expect(out.accountsTotal).toBeGreaterThanOrEqual(3);
    expect(out).toMatchObject({
      gotAccount: true,
      renamed: 'Renamed',
      authorized: 'authorized',
      captured: 'succeeded',
      refunded: 'partially_refunded',
      canceled: 'canceled',
      gotPayment: 500,
      walked: 2000 + 100,
      listed: 1,
      sparse: 'id,account,amount:string',
      sparseOne: 'partially_refunded',
      deleted: 404,
      codes: { amount: ['out_of_range'], 'card.cvc': ['invalid_cvc'] },
      aborted: 'cancelled by the caller',
      timedOut: 'TimeoutError',
    });
    if (node === SYSTEM_NODE) expect(Number(out.node.split('.')[0])).toBeLessThan(24);
  });

  it('runs docs/client.md’s example by the steps its "Running the example" gives, on Node 24 and 20; git ignores the tarball', async () => {
    const guide = readFileSync(resolve(CLIENT, '../docs/client.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(guide)![1].replaceAll('http://127.0.0.1:3000', server.url);
    const steps = /### Running the example[\s\S]*?```sh\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(steps, 'docs/client.md says how to run the example').toBeDefined();
    const lines = steps!.trim().split('\n');
    const setup = lines.filter((line) => !/ node example\./.test(line));
    const runs = lines.filter((line) => / node example\./.test(line));
    expect(runs.map((line) => /node (example\.\w+)/.exec(line)![1])).toEqual(['example.ts', 'example.mjs']);
    const folder = mkdtempSync(join(tmpdir(), 'try-client-'));
    const repository = resolve(CLIENT, '..');
    try {
      // Offline, as the suite runs: the client has no dependencies to fetch.
      const env = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
      await run('bash', ['-e', '-c', setup.join('\n').replaceAll('/tmp/try-client', folder)], { cwd: repository, env });
      const tarball = readdirSync(CLIENT).find((f) => f.endsWith('.tgz'))!;
      await run('git', ['check-ignore', '-q', `client/${tarball}`], { cwd: repository });
      for (const [line, node] of [
        [runs[0], process.execPath],
        [runs[1], SYSTEM_NODE],
      ] as const) {
        writeFileSync(join(folder, /node (example\.\w+)/.exec(line)![1]), example);
        const command = line.replace(/#.*$/, '').replace('apk_...', key);
        const { stdout } = await run('bash', ['-e', '-c', command], { cwd: folder, env: { ...env, PATH: `${dirname(node)}:${process.env.PATH}` } }).catch(
          (error) => {
            throw new Error(`${line}: ${error.stderr}`);
          },
        );
        expect(stdout, line).toMatch(/\{ total: \d+, second: \d+ \}/);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
      for (const file of readdirSync(CLIENT).filter((f) => f.endsWith('.tgz'))) rmSync(join(CLIENT, file));
    }
  });
});
