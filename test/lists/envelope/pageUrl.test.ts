import { describe, expect, it } from 'vitest';
import { decodedKey, pageUrl, pageUrlBase } from '../../../src/lists/envelope/pageUrl.ts';

describe('page URLs', () => {
  it('keep every parameter but page, in the client’s order and encoding, and put page last', () => {
    const base = pageUrlBase('https://api.example', '/v3/payments?page=3&filter[status]=failed&sort=-amount&per_page=5');
    expect(base).toEqual({ path: 'https://api.example/v3/payments', carried: ['filter[status]=failed', 'sort=-amount', 'per_page=5'] });
    expect(pageUrl(base, 4)).toBe('https://api.example/v3/payments?filter[status]=failed&sort=-amount&per_page=5&page=4');
  });

  it('recognise page however it is encoded, and drop every copy of it', () => {
    const base = pageUrlBase('http://h', '/v3/accounts?%70age=2&page=3&pag%65=4&filter%5Bname%5D=a%20b');
    expect(base.carried).toEqual(['filter%5Bname%5D=a%20b']);
  });

  it('have only page when nothing else was asked, and drop empty pairs', () => {
    expect(pageUrl(pageUrlBase('http://h', '/v3/accounts'), 1)).toBe('http://h/v3/accounts?page=1');
    expect(pageUrl(pageUrlBase('http://h', '/v3/accounts?&&per_page=2&'), 2)).toBe('http://h/v3/accounts?per_page=2&page=2');
  });

  it('decode keys as qs does: + is a space, an undecodable key stays as written', () => {
    expect(decodedKey('a+b=c')).toBe('a b');
    expect(decodedKey('filter%5Bx%5D')).toBe('filter[x]');
    expect(decodedKey('bad%E0=1')).toBe('bad%E0');
  });
});
