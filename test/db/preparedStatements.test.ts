import { describe, expect, it } from 'vitest';
import { MAX_PREPARED_CHARS_PER_CONNECTION, preparedFull, preparedQueryOn } from '../../src/db/preparedStatements.ts';

describe('prepared statements per connection', () => {
  it('are bounded by their text too: past it a new text runs unnamed and the connection is full', () => {
    const client = {};
    const long = (i: number) => `select ${i} /* ${'x'.repeat(MAX_PREPARED_CHARS_PER_CONNECTION / 4)} */`;
    const sent = [0, 1, 2, 3, 4].map((i) => preparedQueryOn(client, long(i), []));
    expect(sent.map((s) => s.name !== undefined)).toEqual([true, true, true, false, false]);
    expect(preparedFull(client)).toBe(true);
    // One already prepared still goes by its name.
    expect(preparedQueryOn(client, long(1), []).name).toBe(sent[1].name);
    expect(preparedFull({})).toBe(false);
  });
});
