// Nonces. acme-client asks the CA for a fresh nonce (newNonce) before every signed request,
// doubling the requests; and Pebble closes the connection after a HEAD, so each also cost a new
// TLS handshake. Every CA response carries a fresh Replay-Nonce (RFC 8555 §7.2: clients should use
// it), so they are kept in a small pool per client and used first; newNonce is asked only when it
// is empty.
import { isBadNonce } from './errors.ts';

/** A nonce older than this is not used (CAs expire them; Let's Encrypt's last minutes). */
const NONCE_MAX_AGE_MS = 30_000;
const NONCE_POOL_SIZE = 64;

/** Wraps the client's `request` (to collect nonces) and `getNonce` (to hand them out first). */
/** The two members of acme-client's HttpClient the pool wraps (client-internals.ts has the whole shape). */
export interface NonceSource {
  request(url: string, method: string, opts?: object): Promise<{ status: number; headers: Record<string, unknown>; data: unknown }>;
  getNonce(): Promise<string>;
}

export function reuseNonces(http: NonceSource): void {
  const pool: Array<{ nonce: string; at: number }> = [];
  const request = http.request.bind(http);
  const getNonce = http.getNonce.bind(http);
  http.request = async (url, method, opts) => {
    const response = await request(url, method, opts);
    const nonce = response.headers['replay-nonce'];
    // A badNonce answer's own nonce is used by acme-client's retry at once: pooling it too would
    // hand it out twice.
    if (typeof nonce === 'string' && nonce && !isBadNonce(response.data) && method.toLowerCase() !== 'head') {
      pool.push({ nonce, at: Date.now() });
      if (pool.length > NONCE_POOL_SIZE) pool.shift();
    }
    return response;
  };
  http.getNonce = async () => {
    for (let entry = pool.pop(); entry; entry = pool.pop()) {
      if (Date.now() - entry.at < NONCE_MAX_AGE_MS) return entry.nonce;
    }
    return getNonce();
  };
}
