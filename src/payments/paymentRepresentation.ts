import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { RepresentationOffer } from '../representations/representationQuery.ts';
import { accountExpansion } from '../accounts/accountRepresentation.ts';
import { PaymentSchema } from './paymentSchema.ts';

/** What payment reads offer: `fields[payments]`, and `expand[]=account` (trimmed by `fields[accounts]`). */
export function paymentRepresentation(db: Kysely<Database>): RepresentationOffer {
  return { own: { type: 'payments', fields: Object.keys(PaymentSchema.properties), schema: PaymentSchema }, expansions: [accountExpansion(db)] };
}
