import { lookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may not go unless the operator allows it (WEBHOOK_ALLOW_PRIVATE_TARGETS):
 * loopback, private, carrier-grade NAT, link-local (incl. cloud metadata 169.254.169.254 and
 * fd00:ec2::254), unspecified and multicast addresses.
 */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 3],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv6');

/** Whether an address (v4, v6, or v4-mapped v6) is one a webhook must not reach. */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return FORBIDDEN.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why `url` cannot be an endpoint (its form; addresses are checked when connecting), or undefined. */
export function urlProblem(url: string, allowPrivate: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not an absolute URL';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) return 'must be https';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isForbiddenAddress(host)))) {
    return 'must not point at a loopback, private, link-local or metadata address';
  }
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | Array<{ address: string; family: number }>, family?: number) => void;

/**
 * A `lookup` for http.request that refuses forbidden addresses: the check happens on the very
 * addresses the connection uses, so a name that resolves elsewhere later (DNS rebinding) is
 * caught on every attempt.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const bad = addresses.find((a) => isForbiddenAddress(a.address));
      if (bad && !allowPrivate) {
        const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${bad.address}, a loopback, private, link-local or metadata address`);
        refused.code = 'EFORBIDDENTARGET';
        return callback(refused, '');
      }
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
