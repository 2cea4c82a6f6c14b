// acme-client's HTTP layer, replaced: one node:https request per call on a kept-alive, bounded
// connection pool, the body read whole and JSON parsed when the CA says it is JSON. acme-client
// sends everything through `HttpClient.request(url, method, opts)` and reads only status, headers
// and data; going through axios (config merging, header objects, transforms, interceptors, its
// adapter) cost more CPU per ACME request than signing the request did. ACME needs no redirects,
// compression, proxies or streams (RFC 8555: JSON and PEM bodies).
import http from 'node:http';
import https from 'node:https';

export interface AcmeResponse { status: number; headers: Record<string, string | string[] | undefined>; data: unknown }

export interface AcmeRequestOptions {
  /** The connection pool for a URL (a configured CA bundle is trusted for its origin only). */
  agentFor(url: URL): http.Agent;
  /** A hung request fails the attempt, not the activity slot. */
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

export function createAcmeRequest(options: AcmeRequestOptions) {
  return (url: string, method: string, opts: { data?: unknown; headers?: Record<string, string> } = {}): Promise<AcmeResponse> => new Promise((resolve, reject) => {
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
    request.setTimeout(options.timeoutMs, () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => reject(options.connectionError(error.code)));
    if (body !== undefined) request.write(body);
    request.end();
  });
}
