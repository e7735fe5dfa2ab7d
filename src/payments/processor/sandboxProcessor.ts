import type { CardProcessor, ProcessorOutcome } from './cardProcessor.ts';

const DECLINES: Record<string, { code: string; message: string }> = {
  insufficient_funds: { code: 'insufficient_funds', message: 'The card has insufficient funds.' },
  card_declined: { code: 'card_declined', message: 'The card was declined.' },
  expired_card: { code: 'expired_card', message: 'The card has expired.' },
  incorrect_cvc: { code: 'incorrect_cvc', message: 'The card’s security code is incorrect.' },
  processing_error: { code: 'processing_error', message: 'An error occurred while processing the card. Try again later.' },
};

/**
 * Test numbers in the style of well-known card APIs' test modes. Every other valid number
 * is approved. Documented in docs/payments.md (Card payments → Test cards).
 */
export const SANDBOX_CARDS: Record<string, keyof typeof DECLINES | 'approve'> = {
  '4242424242424242': 'approve',
  '5555555555554444': 'approve',
  '2223003122003222': 'approve',
  '378282246310005': 'approve',
  '6011111111111117': 'approve',
  '3566002020360505': 'approve',
  '36227206271667': 'approve',
  '6200000000000005': 'approve',
  '4000000000009995': 'insufficient_funds',
  '4000000000000002': 'card_declined',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
};

export const SANDBOX_CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY', 'CHF', 'SEK', 'NOK', 'DKK', 'NZD', 'SGD'] as const;

/** Deterministic: the answer depends on the card number alone. */
export const sandboxProcessor: CardProcessor = {
  currencies: SANDBOX_CURRENCIES,
  async authorize({ card }): Promise<ProcessorOutcome> {
    const behaviour = SANDBOX_CARDS[card.digits] ?? 'approve';
    if (behaviour === 'approve') return { approved: true };
    return { approved: false, ...DECLINES[behaviour] };
  },
};
