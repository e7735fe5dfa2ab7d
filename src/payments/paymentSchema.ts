import { Type, type Static } from 'typebox';
import { CARD_BRANDS, PAYMENT_STATUSES } from './paymentListSpec.ts';
import { Metadata } from '../accounts/accountSchema.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const CardSchema = Type.Object({
  brand: Type.Union(CARD_BRANDS.map((b) => Type.Literal(b))),
  last4: Type.String({ pattern: '^[0-9]{4}$' }),
  exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
  exp_year: Type.Integer(),
  fingerprint: Type.String({ description: 'Keyed hash of the card number: the same card gives the same value' }),
});

export const PaymentSchema = Type.Object(
  {
    id: Type.String({ examples: ['pay_01JDQ7ZK3V6M8Y2W4T9N5R1B0C'] }),
    account_id: Type.String(),
    amount: Type.Integer({ description: 'In the currency’s minor unit' }),
    currency: Type.String(),
    status: Type.Union(PAYMENT_STATUSES.map((s) => Type.Literal(s))),
    amount_refunded: Type.Integer(),
    method: Type.Literal('card'),
    card: CardSchema,
    description: NullableString,
    reference: NullableString,
    failure_code: NullableString,
    failure_message: NullableString,
    metadata: Metadata,
    captured_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Payment' },
);

export type Payment = Static<typeof PaymentSchema>;
