import { describe, expect, it } from 'vitest';
import { linkHeader } from '../../../src/lists/envelope/linkHeader.ts';

describe('the Link header', () => {
  it('lists first, prev, next and last, leaving out the ones that are null', () => {
    expect(linkHeader({ first: 'http://h/a?page=1', last: 'http://h/a?page=9', prev: null, next: 'http://h/a?page=2' })).toBe(
      '<http://h/a?page=1>; rel="first", <http://h/a?page=2>; rel="next", <http://h/a?page=9>; rel="last"',
    );
  });

  it('keeps the client’s own encoding and percent-encodes only what cannot stand inside <…>', () => {
    const url = 'http://h/a?filter[name]=a b<c>é&x=%41&page=1';
    expect(linkHeader({ first: url, last: url, prev: url, next: url }).split(', ')[0]).toBe(
      '<http://h/a?filter[name]=a%20b%3Cc%3E%C3%A9&x=%41&page=1>; rel="first"',
    );
  });
});
