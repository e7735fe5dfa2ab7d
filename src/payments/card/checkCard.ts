import type { Static } from 'typebox';
import { issue, type FieldErrors } from '../../core/problem.ts';
import type { CardInputSchema } from '../paymentWriteSchemas.ts';
import { brandRuleOf, type CardBrand } from './detectBrand.ts';
import { luhnValid } from './luhnValid.ts';

/** The card as the request body has it (its schema: paymentWriteSchemas.ts). */
export type CardInput = Static<typeof CardInputSchema>;

export interface CheckedCard {
  /** Digits only; lives in memory for the processor and the fingerprint, never stored. */
  digits: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

/**
 * Checks a card the way a payment form should: digits and length for its brand, Luhn,
 * expiry not past (a card is valid through the last day of its month), CVC length for the
 * brand. Messages never repeat the number. Fields the body's schema already refused are left
 * out (`undefined`) and not checked again, so one answer lists every problem of the card.
 */
export function checkCard(card: Partial<CardInput>, now: Date): { card: CheckedCard } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const digits = card.number?.replace(/[ -]/g, '');
  const wellFormed = digits !== undefined && /^[0-9]{12,19}$/.test(digits);
  const rule = wellFormed ? brandRuleOf(digits) : undefined;
  if (digits === undefined) {
    // refused by the schema: its issue is already listed
  } else if (!wellFormed) errors['card.number'] = [issue('invalid_card_number', 'must be 12 to 19 digits (spaces or dashes allowed between them)')];
  else if (!rule)
    errors['card.number'] = [
      issue('unsupported_card_brand', 'is not a card number of a supported brand (visa, mastercard, amex, discover, jcb, diners, unionpay)'),
    ];
  else if (!rule.lengths.includes(digits.length)) errors['card.number'] = [issue('invalid_card_number', `has the wrong length for a ${rule.brand} card`)];
  else if (!luhnValid(digits)) errors['card.number'] = [issue('invalid_card_number', 'is not a valid card number (check digit); test cards are in the README')];

  let year: number | undefined;
  if (card.exp_year !== undefined && card.exp_month !== undefined) {
    year = card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
    const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
    const expiry = year * 12 + (card.exp_month - 1);
    if (expiry < thisMonth) errors['card.exp_year'] = [issue('card_expired', 'the card has expired')];
    else if (expiry > thisMonth + 50 * 12) errors['card.exp_year'] = [issue('out_of_range', 'is too far in the future')];
  }

  // Without a brand (the number is wrong or missing) the usual 3 digits are asked for.
  const cvcLength = rule?.cvcLength ?? 3;
  if (card.cvc !== undefined && !new RegExp(`^[0-9]{${cvcLength}}$`).test(card.cvc)) {
    errors['card.cvc'] = [issue('invalid_cvc', `must be ${cvcLength} digits for this card`)];
  }

  if (Object.keys(errors).length > 0 || !rule || !digits || year === undefined || card.exp_month === undefined || card.cvc === undefined) return { errors };
  return { card: { digits, brand: rule.brand, last4: digits.slice(-4), expMonth: card.exp_month, expYear: year, cvc: card.cvc } };
}
