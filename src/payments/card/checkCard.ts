import type { Static } from 'typebox';
import type { FieldErrors } from '../../core/problem.ts';
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
 * brand. Messages never repeat the number.
 */
export function checkCard(card: CardInput, now: Date): { card: CheckedCard } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const digits = card.number.replace(/[ -]/g, '');
  const rule = /^[0-9]{12,19}$/.test(digits) ? brandRuleOf(digits) : undefined;
  if (!/^[0-9]{12,19}$/.test(digits)) errors['card.number'] = ['must be 12 to 19 digits (spaces or dashes allowed between them)'];
  else if (!rule) errors['card.number'] = ['is not a card number of a supported brand (visa, mastercard, amex, discover, jcb, diners, unionpay)'];
  else if (!rule.lengths.includes(digits.length)) errors['card.number'] = [`has the wrong length for a ${rule.brand} card`];
  else if (!luhnValid(digits)) errors['card.number'] = ['is not a valid card number (check digit)'];

  const year = card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const expiry = year * 12 + (card.exp_month - 1);
  if (expiry < thisMonth) errors['card.exp_year'] = ['the card has expired'];
  else if (expiry > thisMonth + 50 * 12) errors['card.exp_year'] = ['is too far in the future'];

  const cvcLength = rule?.cvcLength ?? 3;
  if (!new RegExp(`^[0-9]{${cvcLength}}$`).test(card.cvc)) errors['card.cvc'] = [`must be ${cvcLength} digits for this card`];

  if (Object.keys(errors).length > 0 || !rule) return { errors };
  return { card: { digits, brand: rule.brand, last4: digits.slice(-4), expMonth: card.exp_month, expYear: year, cvc: card.cvc } };
}
