import { Type, type Static } from 'typebox';

/** The body of every error (RFC 9457), as `renderProblem.ts` writes it. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI naming the problem type' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), {
        description:
          'For 422: every invalid parameter or body field of the request (body fields in dot notation, `card.number`; query parameters as sent, `filter[amount][gte]`), each with sentences a client can show, Laravel style',
      }),
    ),
    codes: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), {
        description:
          'For 422: the same keys as `errors`, each with a stable machine code per sentence, in the same order (`required`, `invalid_email`, `card_expired`, …)',
      }),
    ),
  },
  { $id: 'Problem' },
);

/** A problem document as sent: the type the schema describes, written once. */
export type ProblemBody = Static<typeof ProblemSchema>;
