// The plain-HTTP listener on port 80 (HOSTGATE_HTTP_PORT), beside where the TLS edge lives: it
// answers ACME HTTP-01 challenges from Postgres (the key authorizations the certificate
// activities stored) and sends every other request to HTTPS. Nothing else.
import http from 'node:http';
import type { Db } from '../db/pool.ts';
import { acmeChallengesRepository } from '../db/repositories/acme-challenges.ts';
import type { Logger } from '../logging/logger.ts';
import { answerWithin } from '../process/deadline.ts';

const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
// A DNS name or IPv4 address, optionally with a port; or a bracketed IPv6 literal with a port.
const HOST = /^(?:([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?)|(\[[0-9a-f:.]+\]))(?::(\d{1,5}))?$/i;

/** The host of a Host header without its port, lower-cased; null when missing or malformed. */
export function hostWithoutPort(header: string | undefined): string | null {
  if (!header || header.length > 260) return null;
  const m = HOST.exec(header.trim());
  if (!m) return null;
  const host = (m[1] ?? m[2])!.toLowerCase().replace(/\.$/, '');
  if (host.length === 0 || host.length > 253) return null;
  return host;
}

/**
 * Key authorizations looked up moments ago. A CA validates one challenge several times at once
 * (Let's Encrypt from several network perspectives; Pebble asked three times per challenge in
 * bench:lifecycle), so lookups of the same token share one query and its answer for a few
 * seconds. Only found tokens are kept: a miss may be a token being stored right now.
 */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

/**
 * How long a challenge request waits for its key authorization. The pool's own bounds (connect,
 * acquire, statement) add up to several seconds on a frozen Postgres (6.0 s measured), longer than
 * a CA's validation request should hang: past this bound the answer is 503 with Retry-After, so the
 * whole answer stays under 2 s. A healthy lookup takes milliseconds.
 */
export const CHALLENGE_ANSWER_WITHIN_MS = 1_500;

export function createChallengeServer({ db, logger, answerWithinMs = CHALLENGE_ANSWER_WITHIN_MS }: { db: Db; logger: Logger; answerWithinMs?: number }): http.Server {
  const challenges = acmeChallengesRepository(db);
  const recent = new Map<string, { keyAuthorization: Promise<string | null>; until: number }>();
  const lookUp = (token: string): Promise<string | null> => {
    const now = Date.now();
    const hit = recent.get(token);
    if (hit && hit.until > now) return hit.keyAuthorization;
    if (recent.size >= CACHE_MAX) {
      for (const [key, entry] of recent) if (entry.until <= now) recent.delete(key);
      if (recent.size >= CACHE_MAX) recent.clear();
    }
    const keyAuthorization = challenges.keyAuthorization(token);
    const entry = { keyAuthorization, until: now + CACHE_TTL_MS };
    recent.set(token, entry);
    const forget = () => { if (recent.get(token) === entry) recent.delete(token); };
    keyAuthorization.then((found) => { if (found === null) forget(); }, forget);
    return keyAuthorization;
  };
  const send = (res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };

  const server = http.createServer((req, res) => {
    const target = req.url ?? '/';
    const path = target.split('?', 1)[0]!;
    if (path.startsWith(CHALLENGE_PREFIX)) {
      const token = path.slice(CHALLENGE_PREFIX.length);
      if (!TOKEN.test(token)) return send(res, 404, 'not found\n');
      answerWithin(lookUp(token), answerWithinMs, 'the challenge store')
        .then((keyAuthorization) => {
          if (keyAuthorization === null) return send(res, 404, 'not found\n');
          logger.debug({ tokenPrefix: token.slice(0, 8), host: req.headers.host }, 'answered ACME challenge');
          send(res, 200, keyAuthorization, { 'content-type': 'text/plain' });
        })
        .catch((error: unknown) => {
          // Postgres away or too slow (the pool's bounds): a temporary state, said as such. The
          // CA counts the validation as failed either way; the order is tried again later.
          logger.error({ err: error }, 'ACME challenge lookup failed');
          if (!res.headersSent) send(res, 503, 'challenge store unavailable, retry later\n', { 'retry-after': '5' });
        });
      return;
    }
    const host = hostWithoutPort(req.headers.host);
    // Only origin-form targets ("/path?query") are redirected; anything else is a bad request.
    if (!host || !target.startsWith('/')) return send(res, 400, 'bad request\n');
    const location = `https://${host.includes(':') ? `[${host.replace(/^\[|\]$/g, '')}]` : host}${target}`;
    send(res, 308, `redirecting to ${location}\n`, { location });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.keepAliveTimeout = 5_000;
  return server;
}
