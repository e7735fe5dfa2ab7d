import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound, Problem, validationProblem, type FieldErrors } from './problem.ts';
import { listQueryFieldErrors, type SchemaError } from '../listing/queryErrors.ts';

function schemaProblem(request: FastifyRequest, error: FastifyError): Problem {
  const errors = (error.validation ?? []) as unknown as SchemaError[];
  const context = error.validationContext;
  const spec = request.routeOptions.config.listSpec;
  if (context === 'querystring' && spec) return validationProblem(listQueryFieldErrors(spec, errors));
  const fieldErrors: FieldErrors = {};
  for (const e of errors as Array<SchemaError & { message?: string }>) {
    const segments = e.instancePath.split('/').slice(1);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') {
      segments.push(String(e.params.additionalProperty));
      message = 'is not an accepted field';
    } else if (e.keyword === 'propertyNames') {
      message = 'has a key that is not 1–40 letters, digits or _ . : -';
    } else if (e.keyword === 'required') {
      segments.push(String(e.params.missingProperty));
      message = 'is required';
    }
    // Body fields are named in Laravel's dot notation (card.number), as Laravel-era clients expect.
    const name = segments.length ? segments.join('.') : (context ?? 'request');
    const list = (fieldErrors[name] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return validationProblem(fieldErrors);
}

/** Anything thrown becomes a problem; what is not one of ours says nothing about internals. */
export function toProblem(request: FastifyRequest, error: FastifyError | Problem): Problem {
  if (error instanceof Problem) return error;
  if (error.validation) return schemaProblem(request, error);
  const status = error.statusCode ?? 500;
  if (status === 404) return notFound();
  if (status >= 400 && status < 500) {
    return new Problem({ status, title: status === 400 ? 'Malformed request' : 'Request rejected', detail: error.message });
  }
  return new Problem({ status: 500, title: 'Internal server error', detail: `Something failed on our side; quote request id ${request.id}.` });
}

export function sendProblem(reply: FastifyReply, problem: Problem) {
  return reply.code(problem.status).headers(problem.headers).type('application/problem+json').send(problem.toJSON());
}

export function registerProblemRendering(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
    const problem = toProblem(request, error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, notFound(`No route ${request.method} ${request.url.split('?')[0]}.`)));
}
