import fc from 'fast-check';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config/configVariables.ts';
import { checkVariable } from '../../src/config/variableSchema.ts';

/** Values as the variables' texts decode to: numbers, booleans, lists, and texts shaped like what they take. */
const values = fc.oneof(
  fc.integer({ min: -5, max: 3_000_000_000 }),
  fc.double(),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('info', 'json', 'INFO', 'sqlite:', 'sqlite:./x', 'postgres://u:p@h:5432/db', 'postgresql://h/db', 'redis://h:6379', 'rediss://h'),
  fc.constantFrom('*', 'https://a.example, http://b.example', 'https://a.example,,', 'https://api.example.com', 'https://api.example.com/a b', 'https://x/%zz'),
  fc.tuple(fc.constantFrom('https://', 'http://', 'sqlite:', 'postgres://', 'redis://'), fc.webUrl(), fc.string()).map(([a, b, c]) => a + b + c),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom('https://', 'http://'),
      fc.constantFrom('[::1]', '[zz]', 'a[b]', 'u:p@h', 'h:80', 'h:80x', '[fe80::1%25eth0]', 'H.example', 'é.example', '[1.2.3.4]'),
      fc.constantFrom('', '/', '/a%2', '/a%20b', '/?q=[x]', '#f?/', '/a b', '/ü', '/a|b', '/{x}'),
    )
    .map(([a, b, c]) => a + b + c),
);

describe('the configuration schema checker', () => {
  it('answers as TypeBox’s checker does, for every variable’s schema', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CONFIG_VARIABLES), values, (variable, value) => {
        expect(checkVariable(variable.schema, value), `${variable.name} ${JSON.stringify(value)}`).toBe(Value.Check(variable.schema as never, value));
      }),
      { numRuns: 5000 },
    );
  });

  it('counts a text’s length in code points, as JSON Schema does', () => {
    const secret = CONFIG_VARIABLES.find((v) => v.name === 'CARD_FINGERPRINT_SECRET')!;
    expect(checkVariable(secret.schema, '😀'.repeat(16))).toBe(true);
    expect(checkVariable(secret.schema, '😀'.repeat(15))).toBe(false);
  });
});
