declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Set by POST routes whose body may be left out (an action's options, or no body at all):
     * an empty body labelled `application/json`, as every JSON client library sends, is read as
     * no body, not refused as empty JSON (http/jsonBody.ts).
     */
    optionalBody?: boolean;
  }
}

/** Route config of a POST whose body may be left out. */
export const OPTIONAL_BODY = { optionalBody: true } as const;
