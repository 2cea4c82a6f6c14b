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
