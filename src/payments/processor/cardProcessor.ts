import type { CheckedCard } from '../card/checkCard.ts';

export type ProcessorOutcome = { approved: true } | { approved: false; code: string; message: string };

export interface AuthorizationRequest {
  card: CheckedCard;
  amount: number;
  currency: string;
}

/** What the service needs from a card network: an answer to one authorization. */
export interface CardProcessor {
  readonly currencies: readonly string[];
  authorize(request: AuthorizationRequest): Promise<ProcessorOutcome>;
}
