// What a vendor may change on a connected domain (issue 23): metadata, an edge redirect and
// per-hostname TLS settings. Pure checks and encodings shared by the API (which refuses bad
// values with the `param` that is wrong) and the edge (which serves the stored values).

/** Metadata limits (Cloudflare for SaaS's custom metadata is of this size). */
export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY = 40;
export const METADATA_MAX_VALUE = 500;
export const METADATA_MAX_BYTES = 4096;

export type Metadata = Record<string, string>;

export const redirectStatuses = [301, 302, 307, 308] as const;
export type RedirectStatus = (typeof redirectStatuses)[number];

/** As stored (domains.redirect) and shown: `to` is an https URL or a hostname of the organization. */
export interface RedirectSetting { to: string; status: RedirectStatus; preserve_path: boolean }

export interface HstsSetting { max_age: number; include_subdomains: boolean; preload: boolean }
export const tlsMinVersions = ['1.2', '1.3'] as const;
export type TlsMinVersion = (typeof tlsMinVersions)[number];

export interface SettingProblem { param: string; message: string }

/** Checks a metadata object against the limits; null when it is fine. */
export function checkMetadata(m: Metadata): SettingProblem | null {
  const keys = Object.keys(m);
  if (keys.length > METADATA_MAX_KEYS) return { param: 'metadata', message: `metadata has ${keys.length} keys; at most ${METADATA_MAX_KEYS} are allowed` };
  for (const key of keys) {
    if (key.length === 0 || key.length > METADATA_MAX_KEY) return { param: `metadata.${key}`, message: `metadata keys are 1–${METADATA_MAX_KEY} characters; "${key.slice(0, 60)}" has ${key.length}` };
    const value = m[key];
    if (typeof value !== 'string') return { param: `metadata.${key}`, message: `metadata values are strings; ${key} is not` };
    if (value.length > METADATA_MAX_VALUE) return { param: `metadata.${key}`, message: `metadata values are at most ${METADATA_MAX_VALUE} characters; ${key} has ${value.length}` };
  }
  const bytes = Buffer.byteLength(JSON.stringify(m));
  if (bytes > METADATA_MAX_BYTES) return { param: 'metadata', message: `metadata is ${bytes} bytes as JSON; at most ${METADATA_MAX_BYTES} are allowed` };
  return null;
}

/**
 * Where a redirect goes, as the edge uses it: an https URL as given (normalised by the URL
 * parser), or a sibling hostname as `https://<hostname>`. With `preserve_path` the request's path
 * and query are appended, so a trailing slash of the target is dropped. `|` separates the edge's
 * route fields and `;` ends a command on HAProxy's runtime API: both are percent-encoded; URLs
 * hold no spaces once parsed.
 */
export function redirectTarget(to: string, preservePath: boolean): string {
  const url = /^https:\/\//i.test(to) ? new URL(to).href : `https://${to}/`;
  const base = preservePath ? url.replace(/\/$/, '') : url;
  return base.replace(/\|/g, '%7C').replace(/;/g, '%3B');
}

/** Whether `to` is written as an https URL (else it names a hostname). */
export function isRedirectUrl(to: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(to);
}

/** Checks a redirect URL (hostname targets are checked against the organization's domains by the API). */
export function checkRedirectUrl(to: string, ownHostname: string): SettingProblem | null {
  let url: URL;
  try { url = new URL(to); } catch { return { param: 'redirect.to', message: `redirect.to "${to.slice(0, 100)}" is not a URL` }; }
  if (url.protocol !== 'https:') return { param: 'redirect.to', message: 'redirect.to must be an https URL (or a hostname of your organization)' };
  if (url.username || url.password) return { param: 'redirect.to', message: 'redirect.to must not carry credentials' };
  if (url.hash) return { param: 'redirect.to', message: 'redirect.to must not carry a fragment' };
  if (url.hostname === ownHostname) return { param: 'redirect.to', message: `redirect.to points at ${ownHostname} itself: every request would redirect to itself` };
  return null;
}

/**
 * The Strict-Transport-Security value the edge sends for a hostname, as its route carries it:
 * directives joined by `_` (a map value holds no spaces, and `;` ends a runtime-API command);
 * HAProxy turns each `_` into `;` (RFC 6797 allows directives without whitespace).
 */
export function hstsHeader(h: HstsSetting): string {
  return [`max-age=${h.max_age}`, ...(h.include_subdomains ? ['includeSubDomains'] : []), ...(h.preload ? ['preload'] : [])].join('_');
}

/** HSTS preload lists require a year, includeSubDomains and preload together. */
export function checkHsts(h: HstsSetting): SettingProblem | null {
  if (h.preload && (!h.include_subdomains || h.max_age < 31_536_000)) {
    return { param: 'tls.hsts.preload', message: 'preload needs include_subdomains: true and max_age of at least 31536000 (one year), as the browsers\' preload lists require' };
  }
  return null;
}

/**
 * The "also_connect" partner of a hostname: `www.<apex>` for an apex, the apex for a `www.` name;
 * null when the hostname is neither.
 */
export function pairedHostname(hostname: string, isApex: boolean, also: 'www' | 'apex'): string | null {
  if (also === 'www') return isApex ? `www.${hostname}` : null;
  return hostname.startsWith('www.') ? hostname.slice(4) : null;
}
