import { Type, type Static } from 'typebox';
import { MetadataInput } from '../accounts/accountWriteSchemas.ts';

export const MAX_AMOUNT = 99_999_999_999;
const Amount = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'In the currency’s minor unit' });

export const CardInputSchema = Type.Object(
  {
    number: Type.String({
      minLength: 1,
      maxLength: 30,
      description: 'Never stored, logged or returned',
      'x-message': 'must be the card number as text: 12 to 19 digits, spaces or dashes allowed between them',
      'x-code': 'invalid_card_number',
    }),
    exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
    exp_year: Type.Integer({ minimum: 0, maximum: 9999 }),
    cvc: Type.String({
      minLength: 1,
      maxLength: 4,
      description: 'Never stored, logged or returned',
      'x-message': 'must be the 3 or 4 digits printed on the card, as text',
      'x-code': 'invalid_cvc',
    }),
  },
  { additionalProperties: false },
);

export const CreatePaymentBody = Type.Object(
  {
    account_id: Type.String({ maxLength: 100 }),
    amount: Amount,
    currency: Type.String({ pattern: '^[A-Z]{3}$', 'x-message': 'must be a three-letter ISO 4217 code in capitals, like EUR', 'x-code': 'invalid_currency' }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    reference: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    metadata: Type.Optional(MetadataInput),
    capture: Type.Optional(Type.Boolean({ default: true })),
    card: CardInputSchema,
  },
  { additionalProperties: false },
);
export type CreatePaymentInput = Static<typeof CreatePaymentBody>;

export const CaptureBody = Type.Object(
  { amount: Type.Optional(Amount) },
  { additionalProperties: false, description: 'amount: capture less than authorized; the rest is released' },
);
export const RefundBody = Type.Object(
  { amount: Type.Optional(Amount), reason: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false, description: 'amount defaults to what is left to refund' },
);
