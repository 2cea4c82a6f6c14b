// acme-client's HTTP layer, replaced by ours: one node:https request per call on a kept-alive,
// bounded connection pool, the body read whole and JSON parsed when the CA says it is JSON.
//
// Why hand-written (measured, see commits b4d16ac and 39dd3bc and "ACME details" in
// docs/api-decisions.md): acme-client sends everything through axios, and axios (config merging,
// header objects, transforms, interceptors, its adapter) cost more CPU per ACME request than
// signing the request did — in a verify burst the worker is CPU-bound on exactly this. Through
// axios a connection failure also lost its socket error code, which the operator needs
// (`Could not reach the certificate authority at … (ECONNREFUSED)`). ACME needs no redirects,
// compression, proxies or streams (RFC 8555: JSON and PEM bodies), so the layer is small.
// acme-client reads only status, headers and data of what `request(url, method, opts)` returns;
// it is installed on each client in client-internals.ts.
//
// What the layer does beyond sending:
// - no retries inside a request (acme-client's own loop slept up to Retry-After inside it);
//   retries belong to Temporal, where Retry-After becomes nextRetryDelay;
// - error responses become CaProblemError with the problem document and Retry-After, except
//   badNonce, which acme-client retries itself with the fresh nonce;
// - no answer at all becomes CaConnectionError;
// - a configured CA bundle is trusted for the ACME directory's origin only;
// - connections to the CA are kept and shared, a bounded number of them: under a burst of
//   issuances, requests wait a moment for a free connection instead of each paying a TLS
//   handshake (on both sides).
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import { CaConnectionError, CaProblemError, isBadNonce, isProblem, parseRetryAfter } from './errors.ts';

export interface AcmeResponse { status: number; headers: Record<string, string | string[] | undefined>; data: unknown }

export type AcmeRequest = (url: string, method: string, opts?: { data?: unknown; headers?: Record<string, string> }) => Promise<AcmeResponse>;

export interface AcmeRequestOptions {
  /** The connection pool for a URL (a configured CA bundle is trusted for its origin only). */
  agentFor(url: URL): http.Agent;
  /**
   * A hung request fails the attempt, not the activity slot: no byte for this long (idle), and the
   * whole exchange (connect, TLS, request, the full answer) within it too — a CA that drips its
   * answer a byte at a time would never trip an idle timeout.
   */
  timeoutMs: number;
  userAgent: string;
  /** What an error response turns into; return null to hand the response to acme-client (badNonce). */
  problemError(response: AcmeResponse, url: string): Error | null;
  /** What a request that got no answer turns into. */
  connectionError(code: string | undefined): Error;
  /** Sees every response (tests count rejected nonces). */
  observe?: ((response: AcmeResponse) => void) | undefined;
}

/** Largest response body accepted (a certificate chain is a few KiB; a directory less). */
const MAX_BODY_BYTES = 1024 * 1024;

export function createAcmeRequest(options: AcmeRequestOptions): AcmeRequest {
  return (url, method, opts = {}) => new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      reject(options.connectionError('ERR_INVALID_URL'));
      return;
    }
    const body = opts.data === undefined || opts.data === null ? undefined : typeof opts.data === 'string' ? opts.data : JSON.stringify(opts.data);
    const headers: Record<string, string> = { 'user-agent': options.userAgent, accept: 'application/json, application/pem-certificate-chain, */*', ...opts.headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/jose+json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    // acme-client asks newNonce with HEAD; RFC 8555 §7.2 allows GET (204) as well, and a HEAD
    // made Pebble close the connection, so the next request paid a new TLS handshake.
    const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    const request = (target.protocol === 'http:' ? http : https).request(target, { method: verb, headers, agent: options.agentFor(target) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) request.destroy(Object.assign(new Error('response body too large'), { code: 'ERR_BODY_TOO_LARGE' }));
        else chunks.push(chunk);
      });
      res.on('error', (error: NodeJS.ErrnoException) => reject(options.connectionError(error.code)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const type = String(res.headers['content-type'] ?? '');
        let data: unknown = text;
        if (/json/i.test(type) && text) {
          try { data = JSON.parse(text); } catch { data = text; }
        }
        const response: AcmeResponse = { status: res.statusCode ?? 0, headers: res.headers, data };
        options.observe?.(response);
        const problem = response.status >= 400 ? options.problemError(response, url) : null;
        if (problem) reject(problem);
        else resolve(response);
      });
    });
    const timedOut = () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
    request.setTimeout(options.timeoutMs, timedOut);
    const deadline = setTimeout(timedOut, options.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('error', (error: NodeJS.ErrnoException) => reject(options.connectionError(error.code)));
    if (body !== undefined) request.write(body);
    request.end();
  });
}

const AGENT_OPTIONS: https.AgentOptions = { keepAlive: true, maxSockets: 32 };
/** A hung request fails the attempt (ETIMEDOUT, retryable) instead of holding it until its start-to-close timeout. */
const CA_REQUEST_TIMEOUT_MS = 20_000;

export interface CaTransportOptions {
  directoryUrl: string;
  /** A PEM bundle trusted (besides the system roots) for the directory's origin only. */
  caBundlePath: string | undefined;
  observe?: ((response: AcmeResponse) => void) | undefined;
}

/**
 * The request function for one CA and its connection pools. The pools belong to this transport
 * (one per certificate activities instance, so one per worker): requests to the CA share their
 * kept-alive connections.
 */
export function createCaTransport(options: CaTransportOptions): { request: AcmeRequest; ready(): Promise<void> } {
  const defaultAgent = new https.Agent(AGENT_OPTIONS);
  // (Plain http: only ever for local test doubles; configuration requires https:.)
  const plainAgent = new http.Agent(AGENT_OPTIONS);
  const caOrigin = new URL(options.directoryUrl).origin;
  let trustedAgent: https.Agent | null = null;

  const request = createAcmeRequest({
    agentFor: (url) => (url.protocol === 'http:' ? plainAgent : url.origin === caOrigin ? trustedAgent ?? defaultAgent : defaultAgent),
    timeoutMs: CA_REQUEST_TIMEOUT_MS,
    userAgent: 'hostgate (acme-client)',
    problemError: (response, url) => {
      if (isBadNonce(response.data)) return null;
      const retryAfter = response.headers['retry-after'];
      return new CaProblemError(response.status, isProblem(response.data) ? response.data : null, parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter), url);
    },
    connectionError: (code) => new CaConnectionError(`could not reach the ACME server${code ? ` (${code})` : ''}`, code),
    observe: options.observe,
  });

  return {
    request,
    /** Loads the configured CA bundle (once) before the first request. */
    async ready() {
      if (!options.caBundlePath || trustedAgent) return;
      const pem = await readFile(options.caBundlePath, 'utf8');
      // One secure context for every connection: with `ca` on the agent, Node would parse the ~150
      // roots again for each new socket (and hash them into the agent's pool key) — under a burst
      // of issuances that was a third of the worker's CPU.
      const secureContext = createSecureContext({ ca: [...rootCertificates, pem] });
      trustedAgent ??= new https.Agent({ secureContext, ...AGENT_OPTIONS });
    },
  };
}
