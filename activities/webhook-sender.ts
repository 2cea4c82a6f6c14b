// One HTTP POST of a webhook delivery, with the SSRF guard applied to the address actually
// connected to. Never throws: every outcome (answer, timeout, refused target, connection error)
// comes back as a result for the caller to record and classify.
//
// - The URL is re-checked at send time (https only unless allowPrivate; literal IPs must be
//   public), then the name is resolved once by the guarded lookup, every answer is checked, and
//   the socket connects to the checked address: a DNS answer cannot change between check and use.
// - No connection pooling: each delivery gets its own connection (agent: false), so a socket
//   opened by other code (or to another target) is never reused for a customer's URL.
// - Redirects are not followed (Node never does; a 3xx is reported as a failure by the caller).
// - One deadline covers connect, TLS, request and the response head; after the head arrives, at
//   most 1 KiB of the body is read before the connection is closed.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { createGuardedLookup, parseWebhookUrl, resolvePublicAddress, UnsafeAddressError, type PromiseLookup } from '../security/outbound-url.ts';

export const RESPONSE_BODY_LIMIT = 1024;

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
  /** DNS lookup used before the guard checks the answers (tests resolve names to chosen addresses). */
  lookup?: PromiseLookup | undefined;
}

export interface SendResult {
  startedAt: Date;
  durationMs: number;
  /** Null when no response head arrived. */
  statusCode: number | null;
  /** First 1 KiB of the response body as text (at most 1024 UTF-8 bytes, no NUL). */
  body: string | null;
  headers: IncomingHttpHeaders | null;
  /** Why there is no answer (timeout, refused target, connection error). */
  error: string | null;
  /**
   * `url`: the URL or its literal IP is not allowed (permanent, the URL must change);
   * `address`: the name resolved to a non-public address (may change with DNS).
   */
  refused: 'url' | 'address' | null;
  /**
   * The Node error code of a request that failed before any answer (`ECONNREFUSED`, `ENOTFOUND`,
   * `ELOOKUPBUSY` from the guarded lookup, …); null otherwise. For the caller's classification.
   */
  errorCode: string | null;
}

/** At most `limit` bytes of UTF-8 text from `bytes`: invalid sequences and NUL become U+FFFD, never a cut character. */
export function responseText(bytes: Buffer, limit = RESPONSE_BODY_LIMIT): string {
  let text = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, limit)).replace(/\u0000/g, '\uFFFD');
  while (Buffer.byteLength(text, 'utf8') > limit) text = [...text].slice(0, -1).join('');
  return text;
}

function describe(error: NodeJS.ErrnoException, url: URL): string {
  if (error instanceof UnsafeAddressError) return error.message;
  switch (error.code) {
    case 'ECONNREFUSED': return `connection refused by ${url.host}`;
    case 'ECONNRESET': return `connection reset by ${url.host}`;
    case 'ENOTFOUND': return `${url.hostname} does not resolve (DNS: not found)`;
    case 'EAI_AGAIN': return `${url.hostname} could not be resolved (DNS temporary failure)`;
    case 'EHOSTUNREACH': case 'ENETUNREACH': return `${url.host} is unreachable`;
    default: return (error.code && !error.message.includes(error.code) ? `${error.code}: ` : '') + error.message;
  }
}

export async function sendWebhook(req: SendRequest): Promise<SendResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const done = (r: Partial<SendResult>): SendResult => ({
    startedAt, durationMs: Math.round(performance.now() - t0), statusCode: null, body: null, headers: null, error: null, refused: null, errorCode: null, ...r,
  });

  const parsed = parseWebhookUrl(req.url, { allowPrivate: req.allowPrivate });
  if (!parsed.ok) return done({ error: `refused: ${parsed.message}`, refused: 'url' });
  const url = new URL(parsed.url);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const guard = { allowPrivate: req.allowPrivate, lookup: req.lookup };
  // Node skips `lookup` for IP literals: check those here (parseWebhookUrl did too; this is the
  // same rule applied to exactly what is connected to).
  if (isIP(host)) {
    try {
      await resolvePublicAddress(host, guard);
    } catch (error) {
      return done({ error: `refused: ${(error as Error).message}`, refused: 'url' });
    }
  }

  const secure = url.protocol === 'https:';
  const body = Buffer.from(req.body, 'utf8');
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let head: http.IncomingMessage | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (r: Partial<SendResult>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(done(r));
    };
    const answered = () => settle({ statusCode: head!.statusCode ?? null, headers: head!.headers, body: responseText(Buffer.concat(chunks)) });

    const request = (secure ? https : http).request({
      protocol: url.protocol,
      host,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...req.headers, 'content-length': String(body.length), connection: 'close' },
      agent: false,
      lookup: createGuardedLookup(guard),
      ...(secure && !isIP(host) ? { servername: host } : {}),
    });
    const deadline = setTimeout(() => {
      // The head arrived in time: that is the answer, whatever the body is still doing.
      if (head) answered();
      else settle({ error: `timed out after ${req.timeoutMs} ms without a response` });
    }, req.timeoutMs);

    request.on('error', (error: NodeJS.ErrnoException) => {
      if (head) return answered();
      const unsafe = error instanceof UnsafeAddressError || error.code === 'ERR_UNSAFE_ADDRESS';
      settle({ error: unsafe ? `refused: ${error.message}` : describe(error, url), refused: unsafe ? 'address' : null, errorCode: error.code ?? null });
    });
    request.on('response', (res) => {
      head = res;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_BODY_LIMIT) answered();
      });
      res.on('end', answered);
      res.on('error', answered);
      res.on('close', answered);
    });
    request.end(body);
  });
}
