// Credentials in URLs: a key passed as `?api_key=…` (or any credential-looking parameter, or any
// value that is one of our tokens) must never reach a log line in clear text. Pino's `redact`
// works on object paths, not inside a string, so request URLs are rewritten by the serializer.

/**
 * Parameter names that carry credentials in common APIs (compared lowercased, `-` as `_`). The
 * API refuses these; the log redacts a wider set (below), since redacting costs nothing.
 */
const REFUSED_PARAM = /^(x_?)?(api_?key|access_?token|token|authorization|bearer|secret|client_?secret|password)$/;
const REDACTED_PARAM = /^(x_?)?(api_?key|key|access_?token|refresh_?token|id_?token|token|auth|authorization|bearer|secret|client_?secret|password|passwd|pwd|signature|sig|session|session_?id|jwt|credentials?)$/;
/** Values that are credentials whatever the parameter is called: our API keys and widget tokens. */
const CREDENTIAL_VALUE = /^(hg_live_|wst_)/;
/**
 * Credentials that travel in a path: those tokens, and the ids of the local billing provider's
 * checkout and portal pages (`/v1/billing/local/portal/ps_local_…`), which are bearer capabilities:
 * whoever has the URL can pay, change the plan or cancel.
 */
const CREDENTIAL_IN_PATH = /(hg_live_|wst_|cs_local_|ps_local_)[A-Za-z0-9_%-]+/g;

const normal = (name: string) => name.toLowerCase().replace(/-/g, '_');

/** A parameter the API refuses to receive: credential-looking name, or one of our tokens as value. */
export function isCredentialParam(name: string, value: string): boolean {
  return REFUSED_PARAM.test(normal(name)) || CREDENTIAL_VALUE.test(value);
}

function isRedacted(name: string, value: string): boolean {
  return REDACTED_PARAM.test(normal(name)) || CREDENTIAL_VALUE.test(value);
}

function decode(part: string): string {
  try { return decodeURIComponent(part.replace(/\+/g, ' ')); } catch { return part; }
}

/** The names of credential-looking parameters in a request URL's query string (decoded). */
export function credentialParamsIn(url: string): string[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const names: string[] = [];
  for (const pair of url.slice(q + 1).split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (isCredentialParam(name, value)) names.push(name);
  }
  return names;
}

/**
 * The URL with the value of every credential-looking query parameter replaced by `[redacted]`,
 * and any of our tokens or page capabilities elsewhere in it (a path segment) too. The rest stays
 * byte for byte.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(CREDENTIAL_IN_PATH, '$1[redacted]');
  if (q < 0) return path;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    return isRedacted(decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))) ? `${pair.slice(0, eq)}=[redacted]` : pair;
  }).join('&');
  return `${path}?${query}`;
}
