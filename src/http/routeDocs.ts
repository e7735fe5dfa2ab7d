// Route schemas carry OpenAPI's documentation keywords next to validation ones.
declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: string[];
    /** When the one operationIdOf derives from the path would not do (`/`). */
    operationId?: string;
  }
}
export {};
