// Generated from src/core/problemCatalog.ts by `npm run generate`; test/core/problemCatalog.test.ts checks it is current.

/** Statuses worth retrying whatever the body says: every problem type with them is retryable. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Problem types worth retrying among statuses that are otherwise final. */
export const RETRYABLE_TYPES: ReadonlySet<string> = new Set(['https://docs.payments.example/problems/idempotency-in-flight']);
