/** Sandbox test cards (docs/payments.md → Card payments). */
export const CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  amex: '378282246310005',
  insufficientFunds: '4000000000009995',
  declined: '4000000000000002',
  expired: '4000000000000069',
  incorrectCvc: '4000000000000127',
  processingError: '4000000000000119',
};

export function card(number: string = CARDS.visa, cvc = number.startsWith('37') ? '1234' : '123') {
  return { number, exp_month: 12, exp_year: 2031, cvc };
}
