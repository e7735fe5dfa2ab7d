import type { FieldErrors } from './problem.ts';

/** The parts of an Ajv error the problem renderers read. */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** `['filter', 'amount', 'gte']` → `filter[amount][gte]`, the name the client wrote. */
export function bracketName(segments: string[]): string {
  return (
    segments[0] +
    segments
      .slice(1)
      .map((s) => `[${s}]`)
      .join('')
  );
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Set by routes whose query parameters deserve their own wording (the lists: which filters
     * and sorts exist); the error renderer asks it instead of naming Ajv's messages, giving it the
     * query too, so the route can add the mistakes only reading finds (one round for all).
     */
    queryFieldErrors?: (errors: readonly SchemaError[], query: unknown) => FieldErrors;
  }
}
