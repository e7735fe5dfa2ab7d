import { Type, type Static } from 'typebox';
import { METADATA_KEY_PATTERN, METADATA_LIMITS } from '../core/metadataRules.ts';

export const MetadataInput = Type.Record(Type.String(), Type.String({ maxLength: METADATA_LIMITS.valueLength }), {
  propertyNames: { pattern: METADATA_KEY_PATTERN },
  maxProperties: METADATA_LIMITS.keys,
  description: 'string → string; at most 50 keys of 1–40 letters, digits or _ . : -, values up to 500 characters',
});

// `x-message` and `x-code` word a 422 about the field (core/schemaIssues.ts).
const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  'x-message': 'must be 1 to 200 characters, not only spaces',
  'x-code': 'invalid_name',
});
// Deliberately plain: one @, no spaces, a dot in the domain. Deliverability is the mailer's job.
const Email = Type.String({
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
  'x-message': 'must be an email address, like ada@example.com',
  'x-code': 'invalid_email',
});
const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 code, upper case',
  'x-message': 'must be a three-letter ISO 4217 code in capitals, like EUR',
  'x-code': 'invalid_currency',
});

export const CreateAccountBody = Type.Object(
  {
    name: Name,
    email: Email,
    currency: Currency,
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false },
);
export type CreateAccountInput = Static<typeof CreateAccountBody>;

export const UpdateAccountBody = Type.Object(
  {
    name: Type.Optional(Name),
    email: Type.Optional(Email),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('closed')])),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateAccountInput = Static<typeof UpdateAccountBody>;
