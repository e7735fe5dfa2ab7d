import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { issue, validationProblem } from '../core/problem.ts';

/**
 * Text a client sends must be text both databases store as sent: no U+0000 (PostgreSQL cannot store
 * it) and valid Unicode (a lone surrogate has no UTF-8 form, and bytes that are not UTF-8 reach here
 * as lone surrogates, jsonBody.ts). Refused up front, with the field named, on either database.
 */
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
export const NOT_UNICODE_MESSAGE = 'must be valid Unicode text (UTF-8, no lone surrogates)';

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  if (!text.isWellFormed()) return NOT_UNICODE_MESSAGE;
  return undefined;
}

interface Step {
  key: string;
  parent: Step | undefined;
}

function pathOf(step: Step | undefined): string[] {
  const path: string[] = [];
  // A name that is not valid Unicode itself is shown with U+FFFD: the answer must be UTF-8.
  for (let at = step; at; at = at.parent) path.push(at.key.toWellFormed());
  return path.reverse();
}

/** Where in a parsed value (object keys included) the first text that is not storable as sent is, and why. */
export function invalidTextIn(value: unknown): { path: string[]; message: string } | undefined {
  // Iterative, with paths built only for a hit: a body may nest tens of thousands of levels deep.
  const pending: Array<[unknown, Step | undefined]> = [[value, undefined]];
  while (pending.length > 0) {
    const [current, at] = pending.pop()!;
    if (typeof current === 'string') {
      const message = problemOf(current);
      if (message) return { path: pathOf(at), message };
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, inner] of Object.entries(current)) {
        const step = { key, parent: at };
        const message = problemOf(key);
        if (message) return { path: pathOf(step), message };
        pending.push([inner, step]);
      }
    }
  }
  return undefined;
}

/** preValidation: a JSON body with text that is not storable as sent is a 422 naming the field (dot notation). */
export function rejectInvalidTextInBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const invalid = invalidTextIn(request.body);
  done(invalid ? validationProblem({ [invalid.path.length ? invalid.path.join('.') : 'body']: [issue('invalid_text', invalid.message)] }) : undefined);
}
