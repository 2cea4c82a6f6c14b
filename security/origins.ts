// Browser origins for widget sessions: what an `allowed_origins` entry may be, and whether the
// `Origin` header of a browser call is allowed. An origin is `scheme://host[:port]`, compared as
// browsers serialise it (lowercase, punycode, default port omitted). Plain HTTP is for local
// development only: localhost, *.localhost, 127.0.0.1 and [::1].

export type OriginResult = { ok: true; origin: string } | { ok: false; message: string };

const SHAPE = /^(https?):\/\/([^/?#@\\\s]+)$/i;
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])$/;

export function isLocalDevelopmentHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '127.0.0.1' || h === '[::1]';
}

/** Validates and normalises one `allowed_origins` entry. */
export function parseAllowedOrigin(input: string): OriginResult {
  const example = 'for example https://app.example.com or http://localhost:5173';
  if (!SHAPE.test(input)) {
    return { ok: false, message: `"${input.slice(0, 100)}" is not an origin: use scheme://host[:port] without a path, query, fragment or credentials, ${example}` };
  }
  let url: URL;
  try { url = new URL(input); } catch { return { ok: false, message: `"${input.slice(0, 100)}" is not a valid origin, ${example}` }; }
  if (url.username || url.password || !HOST.test(url.hostname)) {
    return { ok: false, message: `"${input.slice(0, 100)}" is not a valid origin (wildcards and credentials are not supported), ${example}` };
  }
  if (url.protocol === 'http:' && !isLocalDevelopmentHost(url.hostname)) {
    return { ok: false, message: `"${input.slice(0, 100)}" uses plain http, which is accepted only for local development (localhost, 127.0.0.1); use https` };
  }
  return { ok: true, origin: url.origin };
}

/** The `Origin` header as a serialised origin, or null when absent, `null` or malformed. */
export function requestOrigin(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || value === 'null' || value.length > 300 || !SHAPE.test(value)) return null;
  try {
    const url = new URL(value);
    // Browsers send the serialised form; anything else was not written by a browser.
    return url.origin === value ? value : null;
  } catch {
    return null;
  }
}

/** Origins a session without an allowlist accepts: any https origin, and http on localhost. */
export function allowedByDefault(origin: string): boolean {
  if (origin.startsWith('https://')) return true;
  if (!origin.startsWith('http://')) return false;
  try { return isLocalDevelopmentHost(new URL(origin).hostname); } catch { return false; }
}

/** Whether a session with this allowlist (null: none given) accepts a request from `origin`. */
export function originAllowed(origin: string | null, allowedOrigins: readonly string[] | null): boolean {
  if (origin === null) return false;
  return allowedOrigins === null ? allowedByDefault(origin) : allowedOrigins.includes(origin);
}
