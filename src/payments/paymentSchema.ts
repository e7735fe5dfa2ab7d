import { Type, type Static } from 'typebox';
import { CARD_BRANDS, PAYMENT_STATUSES } from './paymentListSpec.ts';
import { Metadata } from '../accounts/accountSchema.ts';
import { Nullable, StringEnum } from '../core/schemaTypes.ts';

const NullableString = Nullable(Type.String());

export const CardSchema = Type.Object({
  brand: StringEnum(CARD_BRANDS),
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
    status: StringEnum(PAYMENT_STATUSES),
    amount_refunded: Type.Integer(),
    refund_reason: Nullable(Type.String({ description: 'The reason given with the latest refund that gave one' })),
    method: StringEnum(['card'] as const),
    card: CardSchema,
    description: NullableString,
    reference: NullableString,
    failure_code: NullableString,
    failure_message: NullableString,
    metadata: Metadata,
    captured_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Payment' },
);

export type Payment = Static<typeof PaymentSchema>;
