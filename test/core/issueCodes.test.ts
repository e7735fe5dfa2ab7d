import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISSUE_CODES } from '../../src/core/issueCodes.ts';
import { CreateAccountBody, UpdateAccountBody } from '../../src/accounts/accountWriteSchemas.ts';
import { CaptureBody, CreatePaymentBody, RefundBody } from '../../src/payments/paymentWriteSchemas.ts';

const GUIDE = readFileSync(resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');

/** Every `x-code` anywhere in a schema. */
function schemaCodes(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const own = (schema as Record<string, unknown>)['x-code'];
  return [...(typeof own === 'string' ? [own] : []), ...Object.values(schema).flatMap(schemaCodes)];
}

describe('the codes of a 422', () => {
  it('are listed in docs/errors.md, each once, with its meaning, and nothing else is', () => {
    const section = GUIDE.slice(GUIDE.indexOf('### Invalid values (422)'));
    const table = section.slice(section.indexOf('| code | meaning |'), section.indexOf('\n\n', section.indexOf('| code | meaning |')));
    const rows = [...table.matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(rows)).toEqual(ISSUE_CODES);
    expect(rows.length).toBe(Object.keys(ISSUE_CODES).length);
  });

  it('include every code a body schema names for itself', () => {
    const named = [CreateAccountBody, UpdateAccountBody, CreatePaymentBody, CaptureBody, RefundBody].flatMap(schemaCodes);
    expect(named.length).toBeGreaterThan(3);
    for (const code of named) expect(Object.keys(ISSUE_CODES)).toContain(code);
  });
});
