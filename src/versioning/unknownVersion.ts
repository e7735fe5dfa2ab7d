/** The major versions this service answers; others are a 404 that says which exist. */
export const SERVED_VERSIONS = ['v3'];

/** The detail of a 404 for a path no route matches, naming an unknown version prefix as such. */
export function noRouteDetail(method: string, url: string): string {
  const path = url.split('?')[0];
  const prefix = /^\/(v\d+)(\/|$)/.exec(path)?.[1];
  if (prefix && !SERVED_VERSIONS.includes(prefix)) {
    return `API version ${prefix} does not exist here; this service serves ${SERVED_VERSIONS.map((v) => `/${v}`).join(', ')} (see /docs).`;
  }
  return `No route ${method} ${path}.`;
}
