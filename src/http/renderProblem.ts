import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { malformedRequest, notFound, Problem, validationProblem, type FieldErrors } from '../core/problem.ts';
import { schemaIssues, type VerboseSchemaError } from '../core/schemaIssues.ts';
import { noRouteDetail } from '../versioning/unknownVersion.ts';
import { databaseProblem, isDatabaseUnavailable, poolerHint } from '../db/databaseErrors.ts';
import { BASELINE_SECURITY_HEADERS } from '../limits/securityHeaders.ts';
import { ClientGone, clientClosedRequest, isClientAbort } from '../core/clientAborts.ts';
import { settleUnprovenKey, waiveUnprovenKey } from '../auth/authenticate.ts';

/** The field errors of a failed schema validation (a route's querystring may word its own). */
export function schemaFieldErrors(request: FastifyRequest, error: FastifyError): FieldErrors {
  const errors = (error.validation ?? []) as unknown as VerboseSchemaError[];
  const context = error.validationContext;
  const queryFieldErrors = request.routeOptions.config.queryFieldErrors;
  if (context === 'querystring' && queryFieldErrors) return queryFieldErrors(errors, request.query);
  return schemaIssues(errors, context ?? 'request');
}

function schemaProblem(request: FastifyRequest, error: FastifyError): Problem {
  return validationProblem(schemaFieldErrors(request, error));
}

/** Anything thrown becomes a problem; what is not one of ours says nothing about internals. */
export function toProblem(request: FastifyRequest, error: FastifyError | Problem): Problem {
  if (error instanceof Problem) return error;
  if (error.validation) return schemaProblem(request, error);
  // Before the database's errors: a client's dropped connection says ECONNRESET too.
  if (isClientAbort(request.raw, error)) return clientClosedRequest();
  const unavailable = databaseProblem(error);
  if (unavailable) return unavailable;
  const status = error.statusCode ?? 500;
  if (status === 404) return notFound();
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new Problem('body-too-large', {
      detail: `The request body is larger than ${request.routeOptions.bodyLimit} bytes.`,
    });
  }
  // Fastify's own refusals of a request's form: a content type it has no parser for, a body it cannot read.
  if (status === 415) return new Problem('unsupported-media-type', { detail: error.message });
  if (status >= 400 && status < 500) return malformedRequest(error.message);
  return new Problem('internal-error', { detail: `Something failed on our side; quote request id ${request.id}.` });
}

export function sendProblem(reply: FastifyReply, problem: Problem) {
  // Whatever refused the request, a hook that ran before the security headers' own included,
  // the answer carries them (a route's own, such as the docs page's CSP, stay).
  for (const [name, value] of Object.entries(BASELINE_SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
  return reply.code(problem.status).headers(problem.headers).type('application/problem+json').send(problem.toJSON());
}

export function registerProblemRendering(app: FastifyInstance): void {
  app.setErrorHandler(async (thrown: FastifyError | Problem, request, reply) => {
    // On a key not yet checked for this request (a list route's, auth/authenticate.ts), nothing
    // is answered before its lookup: a key refused now gets its own problem, as it would have
    // first. Unless the database was unreachable (waiveUnprovenKey says why).
    if (isDatabaseUnavailable(thrown)) waiveUnprovenKey(request);
    const refusal = (await settleUnprovenKey(request)) as FastifyError | Problem | undefined;
    const error = refusal ?? thrown;
    const problem = toProblem(request, error);
    if (error instanceof ClientGone) request.log.debug({ err: error }, 'client went away before its request was answered');
    else if (isClientAbort(request.raw, error)) request.log.debug({ err: error }, 'client went away before the request was complete');
    else if (problem.status === 503) request.log.warn({ err: error }, 'request refused: service unavailable');
    else if (problem.status >= 500) request.log.error({ err: error, hint: poolerHint(error) }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, notFound(noRouteDetail(request.method, request.url))));
}
