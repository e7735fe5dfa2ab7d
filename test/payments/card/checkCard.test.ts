import { describe, expect, it } from 'vitest';
import { checkCard } from '../../../src/payments/card/checkCard.ts';

const now = new Date('2026-11-22T12:00:00Z');
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };

describe('checkCard', () => {
  it('keeps brand, last4 and expiry of a good card, accepting spaces and dashes', () => {
    const result = checkCard({ ...card, number: '4242 4242-4242 4242' }, now);
    expect(result).toEqual({ card: { digits: '4242424242424242', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, cvc: '123' } });
  });

  it.each([
    ['4242424242424241', 'card.number', 'check digit'],
    ['42424242', 'card.number', '12 to 19 digits'],
    ['4242x42424242424', 'card.number', '12 to 19 digits'],
    ['9000000000000000', 'card.number', 'supported brand'],
    ['42424242424242420', 'card.number', 'wrong length'],
  ])('rejects number %s (%s: %s) without repeating it', (number, field, message) => {
    const result = checkCard({ ...card, number }, now);
    expect('errors' in result && result.errors[field][0].message).toContain(message);
    expect(JSON.stringify(result)).not.toContain(number);
  });

  it('treats a card as valid through the last day of its expiry month', () => {
    expect('card' in checkCard({ ...card, exp_month: 11, exp_year: 2026 }, now)).toBe(true);
    expect(checkCard({ ...card, exp_month: 10, exp_year: 2026 }, now)).toEqual({
      errors: { 'card.exp_year': [{ code: 'card_expired', message: 'the card has expired' }] },
    });
    expect('card' in checkCard({ ...card, exp_month: 1, exp_year: 27 }, now)).toBe(true);
  });

  it('checks only the fields it is given, so the schema’s refusals are not reported twice', () => {
    expect(checkCard({ exp_month: 1, exp_year: 2020 }, now)).toEqual({
      errors: { 'card.exp_year': [{ code: 'card_expired', message: 'the card has expired' }] },
    });
    expect(checkCard({ number: card.number, cvc: '12' }, now)).toEqual({
      errors: { 'card.cvc': [{ code: 'invalid_cvc', message: 'must be 3 digits for this card' }] },
    });
    expect(checkCard({ number: card.number }, now)).toEqual({ errors: {} });
  });

  it('wants a 4-digit CVC for amex and 3 digits for the others', () => {
    expect('card' in checkCard({ ...card, number: '378282246310005', cvc: '1234' }, now)).toBe(true);
    expect(checkCard({ ...card, number: '378282246310005', cvc: '123' }, now)).toEqual({
      errors: { 'card.cvc': [{ code: 'invalid_cvc', message: 'must be 4 digits for this card' }] },
    });
    expect(checkCard({ ...card, cvc: '1234' }, now)).toEqual({ errors: { 'card.cvc': [{ code: 'invalid_cvc', message: 'must be 3 digits for this card' }] } });
    expect(checkCard({ ...card, cvc: 'abc' }, now)).toEqual({ errors: { 'card.cvc': [{ code: 'invalid_cvc', message: 'must be 3 digits for this card' }] } });
  });
});
