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
        description: 'For 422: each invalid parameter or body field (dot notation) with its messages, Laravel style',
      }),
    ),
  },
  { $id: 'Problem' },
);

/** A problem document as sent: the type the schema describes, written once. */
export type ProblemBody = Static<typeof ProblemSchema>;
