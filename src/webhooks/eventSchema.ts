import { Type } from 'typebox';
import { StringEnum } from '../core/schemaTypes.ts';
import { AccountSchema } from '../accounts/accountSchema.ts';
import { PaymentSchema } from '../payments/paymentSchema.ts';
import { EVENT_TYPES } from '../events/eventTypes.ts';

/** One event: what changed, when, and the resource as it was after the change (before it, for account.deleted). */
export const EventSchema = Type.Object(
  {
    id: Type.String({ examples: ['evt_01JDQ7ZK3V6M8Y2W4T9N5R1B0C'] }),
    type: StringEnum(EVENT_TYPES),
    created_at: Type.String({ format: 'date-time' }),
    data: Type.Union([AccountSchema, PaymentSchema], { description: 'The account (account.*) or payment (payment.*)' }),
  },
  { $id: 'Event' },
);
