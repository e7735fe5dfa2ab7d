import type { ResolveHost } from '../../src/webhooks/targetSafety.ts';

/**
 * The host names tests may save webhook endpoints under, and what they "resolve" to: a fixed
 * table, so no test ever asks a DNS server (the machine has no network). Any other name resolves
 * to nothing, as a name that does not exist yet would: accepted at save, checked on every attempt.
 */
export const TEST_HOSTS: Record<string, string[]> = {
  'loopback.example.test': ['127.0.0.1'],
  'intranet.example.test': ['10.0.0.8'],
  'metadata.example.test': ['169.254.169.254'],
  'public.example.test': ['192.0.2.10'],
  /** One public and one loopback address: any forbidden address refuses the name. */
  'split.example.test': ['192.0.2.11', '::1'],
};

export const resolveTestHost: ResolveHost = async (host) => TEST_HOSTS[host] ?? [];
