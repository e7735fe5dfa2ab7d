import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, resolvedTargetProblem, systemResolveHost, urlProblem } from '../../src/webhooks/targetSafety.ts';
import { retryDelayMs } from '../../src/webhooks/deliverySender.ts';

describe('where a webhook may go', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '172.32.0.1'])('allows %s', (address) =>
    expect(isForbiddenAddress(address)).toBe(false),
  );

  it('wants https and no private host, unless the operator allows them', () => {
    expect(urlProblem('https://shop.example.com/hooks', false)).toBeUndefined();
    expect(urlProblem('http://shop.example.com/hooks', false)).toBe('must be https');
    expect(urlProblem('https://127.0.0.1/hooks', false)).toMatch(/loopback/);
    expect(urlProblem('https://[::1]/hooks', false)).toMatch(/loopback/);
    expect(urlProblem('https://localhost/hooks', false)).toMatch(/loopback/);
    expect(urlProblem('https://169.254.169.254/latest/meta-data', false)).toMatch(/metadata/);
    expect(urlProblem('https://user:pw@shop.example.com/', false)).toMatch(/credentials/);
    expect(urlProblem('not a url', false)).toMatch(/absolute/);
    expect(urlProblem('http://127.0.0.1:8080/hooks', true)).toBeUndefined();
    expect(urlProblem('ftp://shop.example.com/', true)).toBe('must be https');
  });
});

describe('host names at save', () => {
  it('reads a name with a trailing dot as the same name', () => {
    expect(urlProblem('https://localhost./hooks', false)).toMatch(/loopback/);
    expect(urlProblem('https://LOCALHOST.:8443/hooks', false)).toMatch(/loopback/);
    expect(urlProblem('https://api.localhost../hooks', false)).toMatch(/loopback/);
    expect(urlProblem('https://127.0.0.1./hooks', false)).toMatch(/loopback/);
    expect(urlProblem('https://shop.example.com./hooks', false)).toBeUndefined();
  });

  it('refuses a name that resolves to any forbidden address, and says which', async () => {
    const table: Record<string, string[]> = { 'in.example.test': ['192.0.2.1', '10.1.2.3'], 'out.example.test': ['192.0.2.1'] };
    const resolve = async (host: string) => table[host] ?? [];
    expect(await resolvedTargetProblem('https://in.example.test./hooks', false, resolve)).toMatch(/in\.example\.test resolves to 10\.1\.2\.3/);
    expect(await resolvedTargetProblem('https://out.example.test/hooks', false, resolve)).toBeUndefined();
    expect(await resolvedTargetProblem('https://nowhere.example.test/hooks', false, resolve)).toBeUndefined();
    expect(await resolvedTargetProblem('https://in.example.test/hooks', true, resolve)).toBeUndefined();
  });

  it('resolves through the system resolver (a loopback name: nothing leaves the machine)', async () => {
    expect(await systemResolveHost('localhost')).toContain('127.0.0.1');
    expect(await resolvedTargetProblem('https://localhost/hooks', false, systemResolveHost)).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
  });

  it('names WEBHOOK_ALLOW_PRIVATE_TARGETS for a URL on this machine or a private network', () => {
    expect(urlProblem('http://127.0.0.1:8080/hooks', false)).toMatch(/^must be https; .*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    expect(urlProblem('http://localhost/hooks', false)).toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    expect(urlProblem('https://[::1]/hooks', false)).toMatch(/loopback.*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    expect(urlProblem('https://10.0.0.8/hooks', false)).toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    expect(urlProblem('https://169.254.169.254/latest/meta-data', false)).not.toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
    expect(urlProblem('http://shop.example.com/hooks', false)).toBe('must be https');
  });
});

describe('the wait between attempts', () => {
  it('doubles from the base, with jitter of ±25 %, capped at 12 hours', () => {
    expect(retryDelayMs(1, 30_000, 0.5)).toBe(30_000);
    expect(retryDelayMs(2, 30_000, 0.5)).toBe(60_000);
    expect(retryDelayMs(5, 30_000, 0.5)).toBe(480_000);
    expect(retryDelayMs(3, 30_000, 0)).toBe(90_000);
    expect(retryDelayMs(3, 30_000, 1)).toBe(150_000);
    expect(retryDelayMs(40, 30_000, 0.5)).toBe(12 * 3_600_000);
  });

  it('keeps retrying for the 3 days of the default window (about a dozen attempts)', () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 3 * 86_400_000) elapsed += retryDelayMs(++attempts, 30_000, 0.5);
    expect(attempts).toBeGreaterThan(10);
    expect(attempts).toBeLessThan(20);
  });
});
