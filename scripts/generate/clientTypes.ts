import { writeFileSync } from 'node:fs';
import { AccountSchema } from '../../src/accounts/accountSchema.ts';
import { accountListSpec } from '../../src/accounts/accountListSpec.ts';
import { CreateAccountBody, UpdateAccountBody } from '../../src/accounts/accountWriteSchemas.ts';
import { ProblemSchema } from '../../src/core/problemSchema.ts';
import type { ListSpec } from '../../src/lists/request/listSpec.ts';
import { RANGE_OPERATORS } from '../../src/lists/request/listSpec.ts';
import { EnvelopeSchema } from '../../src/lists/envelope/envelopeSchema.ts';
import { PaymentSchema } from '../../src/payments/paymentSchema.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import { CaptureBody, CreatePaymentBody, RefundBody } from '../../src/payments/paymentWriteSchemas.ts';
import { Type } from 'typebox';
import { EventSchema } from '../../src/webhooks/eventSchema.ts';
import { eventListSpec } from '../../src/webhooks/eventListSpec.ts';
import { paymentRepresentation } from '../../src/payments/paymentRepresentation.ts';

/** Where the client keeps its types: it ships on its own and imports nothing from the server. */
export const CLIENT_TYPES = new URL('../../client/src/apiTypes.ts', import.meta.url);

type Schema = Record<string, unknown>;

/** A JSON Schema (the subset the API's schemas use, as the OpenAPI document has them) as a TypeScript type. */
function typeOf(schema: Schema, indent: string): string {
  if ('const' in schema) return `'${schema.const}'`;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `'${v}'`).join(' | ');
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map((s) => typeOf(s, indent)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type }, indent)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(schema.items as Schema, indent)}>`;
    case 'object': {
      const properties = schema.properties as Record<string, Schema> | undefined;
      if (!properties) {
        const values = Object.values((schema.patternProperties as Record<string, Schema>) ?? {})[0];
        return `Record<string, ${values ? typeOf(values, indent) : 'unknown'}>`;
      }
      const required = new Set((schema.required as string[]) ?? []);
      const inner = `${indent}  `;
      const lines = Object.entries(properties).map(([name, property]) => {
        const doc = typeof property.description === 'string' ? `${inner}/** ${property.description} */\n` : '';
        return `${doc}${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};`;
      });
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    default:
      return 'unknown';
  }
}

/** The filters of a list as a client writes them (`Instant`: a time as text or a Date). */
function filtersOf(spec: ListSpec): string {
  const range = (value: string) => `{ ${RANGE_OPERATORS.map((op) => `${op}?: ${value}`).join('; ')} }`;
  const lines = Object.entries(spec.filters).map(([name, filter]) => {
    const value =
      filter.kind === 'enum'
        ? `OneOrMany<${filter.values.map((v) => `'${v}'`).join(' | ')}>`
        : filter.kind === 'code'
          ? 'OneOrMany<string>'
          : filter.kind === 'integerRange'
            ? range('number')
            : filter.kind === 'timeRange'
              ? range('string | Date')
              : filter.kind === 'metadata'
                ? 'Record<string, OneOrMany<string>>'
                : 'string';
    const doc = filter.kind === 'metadata' ? '  /** Metadata key → the value, or any of several values (exact strings); several keys must all match. */\n' : '';
    return `${doc}  ${name}?: ${value};`;
  });
  return `{\n${lines.join('\n')}\n}`;
}

const names = (values: readonly string[]) => values.map((v) => `'${v}'`).join(' | ');
const named = (name: string, schema: Schema, doc: string) => `/** ${doc} */\nexport type ${name} = ${typeOf(schema, '')};\n`;
const sorts = (spec: ListSpec) =>
  Object.keys(spec.sorts)
    .map((s) => `'${s}'`)
    .join(' | ');

/** The client's types: from the schemas the OpenAPI document is made of, and from the list specs its list parameters come from. */
export function clientTypes(): string {
  const frame = EnvelopeSchema(Type.Unknown()) as unknown as { properties: Schema };
  return [
    "// Generated from the API's schemas (the OpenAPI document's components) and list specs by `npm run generate`;",
    '// test/client/types.test.ts fails when it is not current. Do not edit.',
    '',
    named('Account', AccountSchema as unknown as Schema, 'An account, as the API returns it.'),
    named('Payment', PaymentSchema as unknown as Schema, 'A card payment, as the API returns it.'),
    named('Event', EventSchema as unknown as Schema, 'One event (GET /v3/events, and the body of every webhook delivery).'),
    named('CreateAccountInput', CreateAccountBody as unknown as Schema, 'The body of POST /v3/accounts.'),
    named('UpdateAccountInput', UpdateAccountBody as unknown as Schema, 'The body of PATCH /v3/accounts/{account} (at least one field).'),
    named('CreatePaymentInput', CreatePaymentBody as unknown as Schema, 'The body of POST /v3/payments.'),
    named('CaptureInput', CaptureBody as unknown as Schema, 'The body of POST /v3/payments/{payment}/capture.'),
    named('RefundInput', RefundBody as unknown as Schema, 'The body of POST /v3/payments/{payment}/refunds.'),
    named('ProblemBody', ProblemSchema as unknown as Schema, 'Every error body (RFC 9457).'),
    `/** One page of a list: Laravel's envelope. */\nexport type Page<T> = {\n  data: T[];\n  links: ${typeOf(frame.properties.links as Schema, '  ')};\n  meta: ${typeOf(frame.properties.meta as Schema, '  ')};\n};\n`,
    '/** One value, or several (any of). */\nexport type OneOrMany<T> = T | readonly T[];\n',
    `/** The filters of GET /v3/accounts. */\nexport type AccountFilter = ${filtersOf(accountListSpec)};\n`,
    `/** The filters of GET /v3/payments and an account's payments. */\nexport type PaymentFilter = ${filtersOf(paymentListSpec)};\n`,
    `/** The filters of GET /v3/events. */\nexport type EventFilter = ${filtersOf(eventListSpec)};\n`,
    `/** The fields events sort by. */\nexport type EventSortField = ${sorts(eventListSpec)};\n`,
    `/** The fields accounts sort by. */\nexport type AccountSortField = ${sorts(accountListSpec)};\n`,
    `/** The fields payments sort by. */\nexport type PaymentSortField = ${sorts(paymentListSpec)};\n`,
    `/** The names \`fields[accounts]\` takes. */\nexport type AccountFieldName = ${names(Object.keys(AccountSchema.properties))};\n`,
    `/** The names \`fields[payments]\` takes. */\nexport type PaymentFieldName = ${names(Object.keys(PaymentSchema.properties))};\n`,
    `/** The names \`fields[events]\` takes. */\nexport type EventFieldName = ${names(Object.keys(EventSchema.properties))};\n`,
    `/** What \`expand[]\` takes on payments. */\nexport type PaymentExpansion = ${names(paymentRepresentation(null as never).expansions.map((e) => e.name))};\n`,
  ].join('\n');
}

if (import.meta.main) writeFileSync(CLIENT_TYPES, clientTypes());
