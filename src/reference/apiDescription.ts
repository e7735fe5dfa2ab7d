import { readFileSync } from 'node:fs';
import { problemTypesTable } from './problemResponses.ts';

const CHANGELOG = new URL('../../CHANGELOG.md', import.meta.url);

const INTRO = `Accounts and credit card payments, for one tenant per API key. Every list speaks Laravel's
paginator envelope (\`data\`, \`links\`, \`meta\`); walk it by following \`links.next\` (also in the
\`Link\` header) until it is \`null\`. Filters are \`filter[field]=a,b\` (any of) and
\`filter[field][gte|gt|lte|lt]=v\`; \`sort=field,-other\`. Errors are \`application/problem+json\`.

GET responses carry a strong \`ETag\` (send it back in \`If-None-Match\` for a 304) and are compressed
(gzip, br, zstd) when you send \`Accept-Encoding\`. Every POST accepts an \`Idempotency-Key\`.`;

const POLICY = `## Versions and deprecation

The major version is the path prefix (\`/v3\`). Within a major version changes are additive only:
new endpoints, new optional parameters, new response fields, new enum values in responses — clients
must ignore fields they do not know. Anything that would break a client gets a new prefix, and the
previous one keeps running until its sunset. An unknown prefix (\`/v2/…\`, \`/v4/…\`) is a 404 problem.

Anything scheduled to go is announced here first and then answers with \`Deprecation\` (RFC 9745, the
date it was deprecated) and \`Sunset\` (RFC 8594, the date it stops working) headers, plus a
\`Link: <…>; rel="deprecation"\` to its notes, for at least six months before the sunset; it is
marked \`deprecated\` in this document.`;

/** The changelog file as shipped with the service (shown in the reference page). */
export function readChangelog(): string {
  try {
    return readFileSync(CHANGELOG, 'utf8');
  } catch {
    return '# Changelog\n\n(CHANGELOG.md was not shipped with this build.)';
  }
}

/** The newest released version in the changelog: `info.version` of the document. */
export function apiVersion(changelog = readChangelog()): string {
  return /^## \[(\d+\.\d+\.\d+)\]/m.exec(changelog)?.[1] ?? '3.0.0';
}

/** `info.description`: what the API is, the problem types and the version policy; the changelog has its own page (changelogPage.ts), linked here. */
export function apiDescription(): string {
  return `${INTRO}\n\n**[Changelog](${CHANGELOG_LINK})**: what changed in each version (its own page).\n\n${problemTypesTable()}\n\n${POLICY}`;
}

/** Where the description links to the changelog (changelogPage.ts serves it there). */
export const CHANGELOG_LINK = '/docs/changelog';
