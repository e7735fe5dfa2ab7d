import { isIso4217 } from '../core/currencies.ts';
import { accepted, objectOrEmpty } from '../core/acceptedFields.ts';
import { issue, mergeFieldErrors, type FieldErrors } from '../core/problem.ts';

/** Every problem of an account body in one list: what its schema refused, then its currency. */
export function accountBodyProblems(body: unknown, schemaErrors: FieldErrors): FieldErrors {
  const errors = mergeFieldErrors({}, schemaErrors);
  const currency = accepted<string>(schemaErrors, 'currency', objectOrEmpty(body).currency, 'string');
  if (currency !== undefined && !isIso4217(currency))
    mergeFieldErrors(errors, { currency: [issue('unknown_currency', 'is not an ISO 4217 currency code, like EUR or USD')] });
  return errors;
}
