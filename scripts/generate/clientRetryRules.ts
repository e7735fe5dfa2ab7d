import { writeFileSync } from 'node:fs';
import { PROBLEM_CATALOG, problemTypeUri, type ProblemKind, type ProblemTypeEntry } from '../../src/core/problemCatalog.ts';

/** Where the client keeps its copy: it ships on its own and imports nothing from the server. */
export const CLIENT_RETRY_RULES = new URL('../../client/src/retryRules.ts', import.meta.url);

/**
 * The client's retry rules, from the problem catalog: the statuses whose every type is worth
 * retrying (so a proxy's bare 503 is retried too), and the retryable types of other statuses.
 */
export function clientRetryRules(): string {
  const entries = Object.entries(PROBLEM_CATALOG) as Array<[ProblemKind, ProblemTypeEntry]>;
  const statuses = [...new Set(entries.map(([, e]) => e.status))].filter((status) => entries.every(([, e]) => e.status !== status || e.retryable));
  const types = entries.filter(([, e]) => e.retryable && !statuses.includes(e.status)).map(([kind]) => problemTypeUri(kind));
  return `// Generated from src/core/problemCatalog.ts by \`npm run generate\`; test/core/problemCatalog.test.ts checks it is current.

/** Statuses worth retrying whatever the body says: every problem type with them is retryable. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([${statuses.join(', ')}]);

/** Problem types worth retrying among statuses that are otherwise final. */
export const RETRYABLE_TYPES: ReadonlySet<string> = new Set([${types.map((type) => `'${type}'`).join(', ')}]);
`;
}

if (import.meta.main) writeFileSync(CLIENT_RETRY_RULES, clientRetryRules());
