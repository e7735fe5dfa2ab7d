import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { issue, mergeFieldErrors, type FieldErrors } from '../core/problem.ts';
import { isIdOf } from '../core/resourceId.ts';
import { accepted, objectOrEmpty } from '../core/acceptedFields.ts';
import { accountExists } from '../accounts/accountQueries.ts';
import { checkCard, type CardInput, type CheckedCard } from './card/checkCard.ts';

export interface PaymentBodyContext {
  db: Kysely<Database>;
  tenantId: string;
  currencies: readonly string[];
  now: Date;
}

/**
 * Every problem of a create-payment body in one list: what its schema refused, then what the
 * card checks, the processor's currencies and the account find in the fields the schema took.
 * A client fixes its request once, not in three rounds. The account is looked up here only
 * when the answer is a 422 anyway; a request that passes is checked again under the row lock.
 */
export async function paymentBodyProblems(
  body: unknown,
  schemaErrors: FieldErrors,
  { db, tenantId, currencies, now }: PaymentBodyContext,
): Promise<{ errors: FieldErrors } | { card: CheckedCard }> {
  const errors = mergeFieldErrors({}, schemaErrors);
  const fields = objectOrEmpty(body);
  const card = objectOrEmpty(fields.card);
  const partialCard: Partial<CardInput> = {
    number: accepted(schemaErrors, 'card.number', card.number, 'string'),
    exp_month: accepted(schemaErrors, 'card.exp_month', card.exp_month, 'number'),
    exp_year: accepted(schemaErrors, 'card.exp_year', card.exp_year, 'number'),
    cvc: accepted(schemaErrors, 'card.cvc', card.cvc, 'string'),
  };
  const checked = checkCard(partialCard, now);
  if ('errors' in checked) mergeFieldErrors(errors, checked.errors);

  const currency = accepted<string>(schemaErrors, 'currency', fields.currency, 'string');
  if (currency !== undefined && !currencies.includes(currency)) {
    mergeFieldErrors(errors, { currency: [issue('unsupported_currency', `is not a currency we take payments in; supported: ${currencies.join(', ')}`)] });
  }

  const accountId = accepted<string>(schemaErrors, 'account_id', fields.account_id, 'string');
  const unknownAccount = { account_id: [issue('unknown_account', 'is not an account of yours (an acc_… id from GET /v3/accounts)')] };
  // Listed here only beside the form's own problems; alone, an unknown account (of an account's
  // shape or not) is the write's answer, kept for its Idempotency-Key like any refusal it makes.
  if (accountId !== undefined && Object.keys(errors).length > 0 && (!isIdOf('acc', accountId) || !(await accountExists(db, tenantId, accountId))))
    mergeFieldErrors(errors, unknownAccount);

  if (Object.keys(errors).length > 0 || 'errors' in checked) return { errors };
  return { card: checked.card };
}
