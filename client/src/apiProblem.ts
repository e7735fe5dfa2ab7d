/** The API's error body (RFC 9457 `application/problem+json`), as the server's schema has it. */
import type { ProblemBody } from './apiTypes.ts';

export type { ProblemBody };

/** Thrown for every non-2xx answer: carries the problem body as the API sent it. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string | undefined;
  /** For a 422: each field (dot notation) with sentences you can show a person. */
  readonly errors: Record<string, string[]> | undefined;
  /** For a 422: the same fields with a stable code per sentence, to branch on. */
  readonly codes: Record<string, string[]> | undefined;
  readonly problem: ProblemBody;
  /** The server's X-Request-Id: quote it when reporting a failure. */
  readonly requestId: string | undefined;

  constructor(problem: ProblemBody, requestId?: string) {
    super(`${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`);
    this.name = 'ApiProblem';
    this.problem = problem;
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors;
    this.codes = problem.codes;
    this.requestId = requestId;
  }
}
