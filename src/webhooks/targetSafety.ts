import { lookup } from 'node:dns';
import { lookup as lookupAll } from 'node:dns/promises';
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

/**
 * Where a developer's own receiver runs: this machine or a private network. Refusing one of these
 * names the setting that allows it; link-local and metadata addresses never get the hint.
 */
const LOCAL = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  LOCAL.addSubnet(net, bits, 'ipv4');
LOCAL.addAddress('::1', 'ipv6');
LOCAL.addSubnet('fc00::', 7, 'ipv6');

function isLocalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return LOCAL.check(mapped[1], 'ipv4');
  const family = isIP(address);
  return family !== 0 && LOCAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The host as DNS and the address checks read it: without IPv6 brackets and without the
 * trailing dots of a fully qualified name (`localhost.` is `localhost`).
 */
export function targetHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

const FORBIDDEN_TARGET = 'must not point at a loopback, private, link-local or metadata address';
/** Said to whoever points a webhook at their own machine or network: the operator's switch for that. */
export const LOCAL_TESTING_HINT =
  'for a receiver on your own machine or network, start the server with WEBHOOK_ALLOW_PRIVATE_TARGETS=true (local testing only)';

/** Why `url` cannot be an endpoint by its form and literal host, or undefined (names are resolved by resolvedTargetProblem). */
export function urlProblem(url: string, allowPrivate: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not an absolute URL';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials';
  const host = targetHost(parsed);
  const literal = isIP(host) !== 0;
  const local = isLocalhostName(host) || (literal && isLocalAddress(host));
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) {
    return parsed.protocol === 'http:' && local ? `must be https; ${LOCAL_TESTING_HINT}` : 'must be https';
  }
  if (!allowPrivate && (isLocalhostName(host) || (literal && isForbiddenAddress(host)))) {
    return local ? `${FORBIDDEN_TARGET}; ${LOCAL_TESTING_HINT}` : FORBIDDEN_TARGET;
  }
  return undefined;
}

/** The addresses a host name resolves to; a name that does not resolve (yet) gives none. */
export type ResolveHost = (host: string) => Promise<string[]>;

/** How long a save waits for DNS: a name still unresolved then is checked again on every attempt. */
const RESOLVE_TIMEOUT_MS = 3000;

/** The system's resolver (what connecting uses: /etc/hosts, then DNS), bounded in time. */
export const systemResolveHost: ResolveHost = (host) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS);
    lookupAll(host, { all: true })
      .then(
        (addresses) => addresses.map((a) => a.address),
        () => [],
      )
      .then((addresses) => {
        clearTimeout(timer);
        resolve(addresses);
      });
  });

/**
 * Why the addresses `url`'s host name resolves to now make it no endpoint, or undefined: a name
 * pointing at a loopback or private address is refused when it is saved, not only when it is
 * sent to (every attempt checks the addresses it connects to again: DNS can change).
 */
export async function resolvedTargetProblem(url: string, allowPrivate: boolean, resolveHost: ResolveHost): Promise<string | undefined> {
  if (allowPrivate) return undefined;
  const host = targetHost(new URL(url));
  if (isIP(host) !== 0) return undefined;
  const bad = (await resolveHost(host)).find(isForbiddenAddress);
  if (bad === undefined) return undefined;
  const refused = `must not resolve to a loopback, private, link-local or metadata address (${host} resolves to ${bad})`;
  return isLocalAddress(bad) ? `${refused}; ${LOCAL_TESTING_HINT}` : refused;
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
