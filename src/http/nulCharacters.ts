import type { FastifyRequest } from 'fastify';
import { validationProblem } from './problem.ts';

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/**
 * Where in a parsed value (object keys included) a string holds U+0000, as path segments.
 * PostgreSQL text cannot store NUL at all and SQLite would keep it and compare it oddly, so no
 * client text may carry one: it is refused up front, with the field named, on either database.
 */
interface Step {
  key: string;
  parent: Step | undefined;
}

function pathOf(step: Step | undefined): string[] {
  const path: string[] = [];
  for (let at = step; at; at = at.parent) path.push(at.key);
  return path.reverse();
}

export function nulPath(value: unknown): string[] | undefined {
  // Iterative, with paths built only for a hit: a body may nest tens of thousands of levels deep.
  const pending: Array<[unknown, Step | undefined]> = [[value, undefined]];
  while (pending.length > 0) {
    const [current, at] = pending.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return pathOf(at);
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, inner] of Object.entries(current)) {
        const step = { key, parent: at };
        if (key.includes('\u0000')) return pathOf(step);
        pending.push([inner, step]);
      }
    }
  }
  return undefined;
}

/** preValidation: a JSON body with NUL in any text is a 422 naming the field (dot notation). */
export async function rejectNulInBody(request: FastifyRequest): Promise<void> {
  const path = nulPath(request.body);
  if (path) throw validationProblem({ [path.length ? path.join('.') : 'body']: [NUL_MESSAGE] });
}
