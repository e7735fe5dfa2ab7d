/**
 * The text of a value with its secret hidden: a URL's password becomes `***` (the rest stays,
 * it is what an operator needs to see), and a value that is a secret as a whole is all `***`.
 * Works on text that is not a valid URL too: a mistyped URL is exactly when it gets printed.
 */
export function maskSecret(value: string, secret: 'password-in-url' | 'whole' | undefined): string {
  if (!secret) return value;
  if (secret === 'whole') return '***';
  const scheme = value.indexOf('://');
  const at = value.lastIndexOf('@');
  if (scheme < 0 || at < scheme) return value;
  const userInfo = value.slice(scheme + 3, at);
  const colon = userInfo.indexOf(':');
  if (colon < 0) return value;
  return `${value.slice(0, scheme + 3 + colon + 1)}***${value.slice(at)}`;
}
