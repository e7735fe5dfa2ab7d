// Route schemas carry OpenAPI's documentation keywords next to validation ones.
declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: string[];
  }
}
export {};
