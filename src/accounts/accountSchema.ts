import { Type, type Static } from 'typebox';
import { ACCOUNT_STATUSES } from './accountListSpec.ts';
import { StringEnum } from '../core/schemaTypes.ts';

export const Metadata = Type.Record(Type.String(), Type.String(), { description: 'string → string, at most 50 keys' });

export const AccountSchema = Type.Object(
  {
    id: Type.String({ examples: ['acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C'] }),
    name: Type.String(),
    email: Type.String(),
    currency: Type.String({ description: 'Default currency, ISO 4217' }),
    status: StringEnum(ACCOUNT_STATUSES),
    metadata: Metadata,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Account' },
);

export type Account = Static<typeof AccountSchema>;
