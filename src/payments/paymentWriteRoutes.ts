import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { notFound, validationProblem } from '../core/problem.ts';
import { isIdOf } from '../core/resourceId.ts';
import { idempotentPost } from '../idempotency/sendWriteResult.ts';
import { ResourceSchema } from '../lists/index.ts';
import { paymentBodyProblems } from './paymentBodyChecks.ts';
import { bodySchemaErrors } from '../core/schemaIssues.ts';
import { cardFingerprint } from './cardFingerprint.ts';
import type { CardProcessor, ProcessorOutcome } from './processor/cardProcessor.ts';
import { toPaymentResource } from './paymentResource.ts';
import { PaymentSchema } from './paymentSchema.ts';
import { CaptureBody, CreatePaymentBody, RefundBody } from './paymentWriteSchemas.ts';
import { OPTIONAL_BODY } from '../core/optionalBody.ts';
import { cancelPayment, capturePayment, createdPayment, insertPayment, refundPayment, type NewPayment } from './paymentWrites.ts';
import { createPaymentAtOnce } from './paymentCreateAtOnce.ts';

const PaymentParams = Type.Object({ payment: Type.String() });
const PaymentResponse = { 200: ResourceSchema(PaymentSchema) };

/** Action bodies are optional: no body means the defaults. */
async function defaultToEmptyBody(request: { body: unknown }) {
  if (request.body === undefined || request.body === null) request.body = {};
}

export function registerPaymentWriteRoutes(fastify: FastifyInstance, db: Db, processor: CardProcessor, secret: string): void {
  // Request and reply types come from the route schemas (TypeBox), never restated.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/v3/payments', {
    // A key this instance found valid before is checked by the create's first statement (decision 0095).
    config: { scope: 'write', keyLeftToStatement: true },
    schema: {
      summary: 'Take a card payment',
      description:
        'Checks the card, asks the processor, and records the payment as succeeded, authorized (capture: false) or failed. `account_id` must be an account of yours: take an `id` from GET /v3/accounts and put it in place of the example’s before "Execute" (the example’s card is the sandbox’s approved visa; the README lists test cards that decline).',
      tags: ['payments'],
      body: CreatePaymentBody,
      response: { 201: ResourceSchema(PaymentSchema) },
    },
    // Schema problems reach the handler, to be listed with the card's and the account's.
    attachValidation: true,
    handler: async (request, reply) => {
      const schemaErrors = bodySchemaErrors(request.validationError);
      const checked = await paymentBodyProblems(request.body, schemaErrors, {
        db: db.kysely,
        tenantId: request.caller.tenantId,
        currencies: processor.currencies,
        now: new Date(),
      });
      if ('errors' in checked) throw validationProblem(checked.errors);
      const input = request.body;
      const card = checked.card;
      // Asked once per request, and only by a write that runs: the write transaction may run again
      // after a deadlock (writeTransaction.ts), and a replay asks nothing.
      let authorization: Promise<ProcessorOutcome> | undefined;
      const newPayment = async (): Promise<NewPayment> => {
        authorization ??= processor.authorize({ card, amount: input.amount, currency: input.currency });
        return { input, card, fingerprint: cardFingerprint(secret, card.digits), outcome: await authorization };
      };
      return idempotentPost(
        db,
        secret,
        request,
        reply,
        async (write) => createdPayment(await insertPayment(write, request.caller.tenantId, await newPayment())),
        (claim, unproven) => createPaymentAtOnce(db, claim, input.account_id, newPayment, unproven),
      );
    },
  });

  // Checked inside the write, so its 404 is kept for an Idempotency-Key like an unknown payment's.
  const paymentId = (id: string) => {
    if (!isIdOf('pay', id)) throw notFound(`No payment ${id}.`);
    return id;
  };

  app.post('/v3/payments/:payment/capture', {
    config: { scope: 'write', ...OPTIONAL_BODY },
    schema: {
      summary: 'Capture an authorized payment (optionally less)',
      tags: ['payments'],
      params: PaymentParams,
      body: CaptureBody,
      response: PaymentResponse,
    },
    preValidation: defaultToEmptyBody,
    handler: (request, reply) => {
      return idempotentPost(db, secret, request, reply, async (write) => {
        const id = paymentId(request.params.payment);
        const row = await capturePayment(write, request.caller.tenantId, id, request.body?.amount);
        return { status: 200, body: { data: toPaymentResource(row) } };
      });
    },
  });

  app.post('/v3/payments/:payment/cancel', {
    config: { scope: 'write', ...OPTIONAL_BODY },
    schema: { summary: 'Cancel a pending or authorized payment', tags: ['payments'], params: PaymentParams, response: PaymentResponse },
    handler: (request, reply) => {
      return idempotentPost(db, secret, request, reply, async (write) => {
        const id = paymentId(request.params.payment);
        const row = await cancelPayment(write, request.caller.tenantId, id);
        return { status: 200, body: { data: toPaymentResource(row) } };
      });
    },
  });

  app.post('/v3/payments/:payment/refunds', {
    config: { scope: 'write', ...OPTIONAL_BODY },
    schema: { summary: 'Refund a captured payment, all or part', tags: ['payments'], params: PaymentParams, body: RefundBody, response: PaymentResponse },
    preValidation: defaultToEmptyBody,
    handler: (request, reply) => {
      return idempotentPost(db, secret, request, reply, async (write) => {
        const id = paymentId(request.params.payment);
        const row = await refundPayment(write, request.caller.tenantId, id, request.body?.amount, request.body?.reason);
        return { status: 200, body: { data: toPaymentResource(row) } };
      });
    },
  });
}
