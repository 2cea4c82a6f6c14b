// Wildcard hostnames (issue 22, docs/wildcards.md): `*.<base>` covers every single-label name
// directly under <base> — `a.<base>`, never <base> itself nor `a.b.<base>` (what a `*.<base>`
// certificate covers, RFC 6125 §6.4.3). Pure helpers shared by the API, the activities and the edge.

/** Whether the stored hostname is a wildcard. */
export function isWildcard(hostname: string): boolean {
  return hostname.startsWith('*.');
}

/** `<base>` of `*.<base>`; the hostname itself otherwise. */
export function wildcardBase(hostname: string): string {
  return isWildcard(hostname) ? hostname.slice(2) : hostname;
}

/**
 * The wildcard that would cover `hostname` (`a.shop.example.com` → `*.shop.example.com`); null for
 * a wildcard or a name with fewer than three labels (a wildcard's base has at least two).
 */
export function coveringWildcard(hostname: string): string | null {
  if (isWildcard(hostname)) return null;
  const dot = hostname.indexOf('.');
  const parent = dot < 0 ? '' : hostname.slice(dot + 1);
  return parent.includes('.') ? `*.${parent}` : null;
}

/** Whether `wildcard` (`*.<base>`) covers `hostname` (exactly one label more than <base>). */
export function wildcardCovers(wildcard: string, hostname: string): boolean {
  return isWildcard(wildcard) && coveringWildcard(hostname) === wildcard;
}

/** A random label under a wildcard's base: what the DNS check resolves (a fresh name, never cached). */
export function probeName(hostname: string, random: string): string {
  return `hostgate-check-${random}.${wildcardBase(hostname)}`;
}

/** How the lookup of a delegation CNAME ended: its first target, none, or no answer. */
export type DelegationLookup = { status: 'found'; target: string } | { status: 'missing' } | { status: 'error' };

/**
 * A wildcard's DNS check also needs `_acme-challenge.<base>` delegated to us (its certificate can
 * only be validated by DNS-01): the problem, or null when the CNAME names the expected target.
 * Codes as on the certificate track of a move (docs/zero-downtime-moves.md); no answer is
 * `lookup_failed` (nothing learned: checked again).
 */
export function judgeDelegation(name: string, expected: string, lookup: DelegationLookup): { code: 'delegation_cname_missing' | 'delegation_cname_wrong' | 'lookup_failed'; message: string } | null {
  if (lookup.status === 'error') return { code: 'lookup_failed', message: `${name} could not be looked up because its DNS servers did not answer. We will try again shortly.` };
  if (lookup.status === 'missing') return { code: 'delegation_cname_missing', message: `No CNAME record found at ${name}; a wildcard's certificate is validated through it. Add: ${name} CNAME ${expected}` };
  if (lookup.target !== expected) return { code: 'delegation_cname_wrong', message: `${name} is a CNAME to ${lookup.target}, not to ${expected}; a wildcard's certificate is validated through it. Change it to ${expected}` };
  return null;
}
