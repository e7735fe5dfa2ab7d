const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const singular = (word: string) => word.replace(/s$/, '');

/**
 * A stable operationId from the route itself (`listPayments`, `getAccount`,
 * `listAccountPayments`, `capturePayment`, `refundPayment`, `exportPayments`), for code generators and deep links.
 */
export function operationIdOf(method: string, url: string, list: boolean): string {
  const segments = url.split('/').filter((s) => s && s !== 'v3');
  const names = segments.filter((s) => !s.startsWith(':')).map((s) => s.replace(/\.json$/, '').replace(/[^A-Za-z0-9]/g, ''));
  const last = segments[segments.length - 1];
  if (last === 'export') return `export${operationIdOf(method, segments.slice(0, -1).join('/'), true).slice('list'.length)}`;
  if (list) return `list${names.map((n, i) => (i < names.length - 1 ? pascal(singular(n)) : pascal(n))).join('')}`;
  if (last?.startsWith(':')) {
    const verb = { GET: 'get', PATCH: 'update', DELETE: 'delete', PUT: 'replace', POST: 'post' }[method] ?? method.toLowerCase();
    return `${verb}${names.map((n) => pascal(singular(n))).join('')}`;
  }
  if (method === 'POST' && segments.length === 1) return `create${pascal(singular(names[0]))}`;
  if (method === 'POST')
    return `${singular(names[names.length - 1])}${names
      .slice(0, -1)
      .map((n) => pascal(singular(n)))
      .join('')}`;
  return names.join('');
}
