// The certificate authorities we order from (issue 22, "A second CA"): HOSTGATE_ACME_DIRECTORIES,
// an ordered JSON list, or — when it is unset — the single-directory variables
// (HOSTGATE_ACME_DIRECTORY_URL, _CA_BUNDLE, _CAA_IDENTITIES, _BUDGET) as a one-element list.
// JSON rather than a home-made `k=v;…` syntax: directory URLs and EAB HMAC keys may hold any of
// the separators such a syntax would need. docs/deploy.md, "Certificate authorities", shows it.

export interface AcmeDirectory {
  /** A short stable name (logs, metrics, the certificate row's `ca`). */
  name: string;
  directoryUrl: string;
  /** A PEM bundle trusted for this directory's connection only (test CAs such as Pebble). */
  caBundlePath: string | undefined;
  /** Issuer domain names a CAA `issue` record names this CA by (e.g. letsencrypt.org). */
  caaIdentities: string[];
  /** External Account Binding (RFC 8555 §7.3.4), for CAs that require it (ZeroSSL, Google Trust Services). */
  eab: { kid: string; hmacKey: string } | undefined;
  /** The shared budget of our account with this CA: at most `orders` new orders per `windowMs`. */
  budget: { orders: number; windowMs: number };
}

/** Let's Encrypt allows 300 new orders per account per 3 h; we keep a margin. */
export const DEFAULT_BUDGET = '250/3h';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `250/3h`, `5/20s`, `1000/1d` → orders per window; an error message when malformed. */
export function parseBudget(text: string): { orders: number; windowMs: number } | string {
  const m = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*([smhd])\s*$/.exec(text);
  if (!m) return `budget "${text}" is not <orders>/<number><s|m|h|d> (e.g. 250/3h)`;
  const orders = Number(m[1]);
  const windowMs = Number(m[2]) * UNIT_MS[m[3]!]!;
  if (orders < 1 || windowMs < 1_000) return `budget "${text}" must allow at least 1 order per at least 1 s`;
  return { orders, windowMs };
}

interface RawEntry { name?: unknown; url?: unknown; caa?: unknown; ca_bundle?: unknown; eab_kid?: unknown; eab_hmac?: unknown; budget?: unknown }
const KEYS = new Set(['name', 'url', 'caa', 'ca_bundle', 'eab_kid', 'eab_hmac', 'budget']);

function identities(value: unknown): string[] | null {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : null;
  if (!items || !items.every((v) => typeof v === 'string')) return null;
  const out = (items as string[]).map((s) => s.trim().toLowerCase()).filter(Boolean);
  return out.every((s) => /^[a-z0-9.-]+$/.test(s)) ? out : null;
}

/**
 * Parses HOSTGATE_ACME_DIRECTORIES. http:// is accepted for local test doubles (a fake CA in a
 * test); every real CA is https://.
 */
export function parseAcmeDirectories(text: string, defaultBudget: string = DEFAULT_BUDGET): { directories: AcmeDirectory[] } | { problems: string[] } {
  const problems: string[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problems: [`HOSTGATE_ACME_DIRECTORIES: not JSON (${(error as Error).message}); expected a list like [{"name": "letsencrypt", "url": "https://…/directory", "caa": ["letsencrypt.org"]}]`] };
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return { problems: ['HOSTGATE_ACME_DIRECTORIES: expected a non-empty JSON list of certificate authorities'] };
  const directories: AcmeDirectory[] = [];
  parsed.forEach((item: unknown, i) => {
    const at = `HOSTGATE_ACME_DIRECTORIES[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) { problems.push(`${at}: expected an object`); return; }
    const e = item as RawEntry;
    const unknown = Object.keys(e).filter((k) => !KEYS.has(k));
    if (unknown.length) problems.push(`${at}: unknown key(s) ${unknown.join(', ')} (known: ${[...KEYS].join(', ')})`);
    const name = typeof e.name === 'string' && /^[a-z0-9][a-z0-9_-]{0,31}$/.test(e.name) ? e.name : null;
    if (!name) problems.push(`${at}.name: expected a short name of lower-case letters, digits, "_" or "-"`);
    const url = typeof e.url === 'string' && /^https?:\/\/\S+$/.test(e.url) ? e.url : null;
    if (!url) problems.push(`${at}.url: expected the ACME directory URL (https://…)`);
    const caa = e.caa === undefined ? [] : identities(e.caa);
    if (!caa) problems.push(`${at}.caa: expected a list of CAA issuer domains (e.g. ["letsencrypt.org"])`);
    if (e.ca_bundle !== undefined && (typeof e.ca_bundle !== 'string' || !e.ca_bundle)) problems.push(`${at}.ca_bundle: expected a path to a PEM file`);
    const hasKid = e.eab_kid !== undefined;
    if (hasKid !== (e.eab_hmac !== undefined)) problems.push(`${at}: eab_kid and eab_hmac go together`);
    else if (hasKid && (typeof e.eab_kid !== 'string' || !e.eab_kid || typeof e.eab_hmac !== 'string' || !/^[A-Za-z0-9_=+/-]+$/.test(e.eab_hmac))) {
      problems.push(`${at}: eab_kid must be a string and eab_hmac the base64url HMAC key the CA gave`);
    }
    const budget = parseBudget(typeof e.budget === 'string' ? e.budget : e.budget === undefined ? defaultBudget : String(e.budget));
    if (typeof budget === 'string') problems.push(`${at}.budget: ${budget}`);
    if (name && url && caa && typeof budget !== 'string') {
      directories.push({
        name, directoryUrl: url, caBundlePath: typeof e.ca_bundle === 'string' ? e.ca_bundle : undefined, caaIdentities: caa,
        eab: hasKid ? { kid: String(e.eab_kid), hmacKey: String(e.eab_hmac) } : undefined, budget,
      });
    }
  });
  const names = directories.map((d) => d.name);
  const dupName = names.find((n, i) => names.indexOf(n) !== i);
  if (dupName) problems.push(`HOSTGATE_ACME_DIRECTORIES: the name "${dupName}" appears twice`);
  const urls = directories.map((d) => d.directoryUrl);
  const dupUrl = urls.find((u, i) => urls.indexOf(u) !== i);
  if (dupUrl) problems.push(`HOSTGATE_ACME_DIRECTORIES: the directory ${dupUrl} appears twice (one account per directory)`);
  return problems.length ? { problems } : { directories };
}

/** Every CAA identity of every configured CA: a CAA record naming any of them lets us issue. */
export function allCaaIdentities(directories: readonly AcmeDirectory[]): string[] {
  return [...new Set(directories.flatMap((d) => d.caaIdentities))];
}
