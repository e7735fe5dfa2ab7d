import { describe, expect, it } from 'vitest';
import { containsSecret, scrubSecrets } from '../../src/core/scrubSecrets.ts';
import { scrubLogLine } from '../../src/http/logRedaction.ts';
import { requestIdOf } from '../../src/http/requestId.ts';
import type { IncomingMessage } from 'node:http';

describe('scrubbing secrets from text, in any encoding', () => {
  it.each([
    ['filter[reference]=4392+6617+0605+0231', 'filter[reference]=[redacted-number]'],
    ['filter[reference]=4392%206617%200605%200231&page=2', 'filter[reference]=[redacted-number]&page=2'],
    ['n=4242.4242/4242 -4242', 'n=[redacted-number]'],
    ['n=%34%32%34%32%34%32%34%32%34%32%34%32%34%32%34%32', 'n=[redacted-number]'],
    ['n=%2534%2532%2534%2532%2534%2532%2534%2532%2534%2532%2534%2532%2534%2532%2534%2532', 'n=[redacted-number]'],
    ['n=４２４２４２４２４２４２４２４２', 'n=[redacted-number]'],
    ['n=4242\u200b4242\u200b4242\u200b4242', 'n=[redacted-number]'],
    ['n=4242424242424242 2031 123', 'n=[redacted-number]'],
    ['"number":"\\u0034242424242424242"', '"number":"[redacted-number]"'],
    ['k=%61pk_abc-DEF&x=1', 'k=apk_[redacted]&x=1'],
    ['k=ap%6B%5Fabc', 'k=apk_[redacted]'],
    ['k=%2561pk_abc', 'k=apk_[redacted]'],
    ['k=APK_abc', 'k=apk_[redacted]'],
  ])('%s → %s', (text, scrubbed) => {
    expect(scrubSecrets(text)).toBe(scrubbed);
  });

  it.each([
    'amount=99999999999',
    '2026-01-01T00:00:00.000Z',
    'pay_01ARZ3NDEKTSV4RRFFQ69G5FAV',
    'page=12&per_page=5000',
    '%E0%A4%A',
    '100%',
    'a+b',
    '8f0e2c1a-1234-4abc-8def-0123456789ab',
  ])('leaves %s alone', (text) => {
    expect(scrubSecrets(text)).toBe(text);
    expect(containsSecret(text)).toBe(false);
  });

  it('scrubs every text of a log line, keys included, and leaves numbers and addresses alone', () => {
    const line = JSON.stringify({
      time: 1732300000000,
      reqId: 'r',
      req: { url: '/a?b=4242%204242%204242%204242', host: '192.168.100.200:3000', remoteAddress: '192.168.100.200' },
      '4242 4242 4242 4242': 1,
      msg: 'x',
    });
    expect(JSON.parse(scrubLogLine(`${line}\n`))).toEqual({
      time: 1732300000000,
      reqId: 'r',
      req: { url: '/a?b=[redacted-number]', host: '192.168.100.200:3000', remoteAddress: '192.168.100.200' },
      '[redacted-number]': 1,
      msg: 'x',
    });
    const clean = '{"level":30,"time":1732300000000,"msg":"ok"}\n';
    expect(scrubLogLine(clean)).toBe(clean);
  });

  it('refuses a request id shaped like a card number or a key, and never generates one', () => {
    const idOf = (id: string) => requestIdOf({ headers: { 'x-request-id': id } } as unknown as IncomingMessage);
    expect(idOf('order-42.retry:1')).toBe('order-42.retry:1');
    for (const secret of ['4242-4242-4242-4242', '4242.4242.4242.4242', '4242424242424242', 'apk_abcdef', 'APK_abcdef']) expect(idOf(secret)).not.toBe(secret);
    for (let i = 0; i < 2000; i++) expect(containsSecret(idOf(''))).toBe(false);
  });
});
