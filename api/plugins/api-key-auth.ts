// Server-to-server authentication: `Authorization: Bearer hg_live_…`, looked up by SHA-256 (a key
// found is kept in memory for seconds and evicted when revoked: api/api-key-cache.ts).
// Runs on onRequest, before the body is parsed, so an unauthenticated caller costs no parsing.
// An address with too many failed lookups is refused before the lookup (api/auth-failure-limit.ts).
// Then the per-key rate limit, then the route's scope (route option `config.scope`).
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../../db/repositories/api-keys.ts';
import { credentialParamsIn } from '../../logging/url-redaction.ts';
import { API_KEY_PREFIX } from '../../security/tokens.ts';
import { ApiError } from '../errors.ts';
import { TokenBuckets } from '../rate-limit.ts';

export interface Principal { kind: 'api_key'; organizationId: string; keyId: string; scopes: ReadonlySet<string> }

declare module 'fastify' {
  interface FastifyRequest { principal: Principal | null }
  interface FastifyContextConfig {
    /** The write scope this route needs; absent on reads (any key of the organization reads). */
    scope?: Scope;
    /** Authenticated with an API key (the server API). */
    apiKey?: boolean;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : '';
}

/**
 * onRequest for every route, known or not (registered at the root in app.ts): a credential in a
 * URL ends up in proxy logs, browser history and Referer headers. Refused (the parameter named,
 * never its value) so the caller fixes it rather than it silently working; our own log lines
 * redact it (logging/url-redaction.ts).
 */
export async function refuseCredentialsInUrl(request: FastifyRequest): Promise<void> {
  const names = credentialParamsIn(request.url);
  if (names.length) {
    throw new ApiError('api_key_in_query', `credentials are not accepted in the URL (query parameter ${JSON.stringify(names[0])}): send the API key as \`Authorization: Bearer hg_live_…\`, and rotate a key that was sent in a URL`, { param: names[0]! });
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key', 'this route needs an API key');
  return request.principal;
}

export const apiKeyAuthPlugin = fp(async function apiKeyAuth(app: FastifyInstance) {
  const buckets = new TokenBuckets(app.deps.config.api.rateLimit.perSecond, app.deps.config.api.rateLimit.burst);
  app.decorateRequest('principal', null);


  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (!config?.apiKey) return;
    const token = bearerToken(request);
    if (token === null) throw new ApiError('missing_api_key', 'send your API key as `Authorization: Bearer hg_live_…`');
    if (!token.startsWith(API_KEY_PREFIX) || token.length > 200) throw new ApiError('invalid_api_key', 'the API key is not valid: check for truncation, or create a new key with `hostgate keys create`');
    // A malformed key was refused above for free; a lookup is what the failure budget protects.
    app.authFailures.refuseIfExhausted(request.ip);
    // From memory while the revocation feed listens, else from Postgres (api/api-key-cache.ts).
    const key = await app.apiKeyCache.authenticate(token);
    if (!key) {
      app.authFailures.recordFailure(request.ip);
      throw new ApiError('invalid_api_key', 'the API key is not valid or has been revoked: create a new key with `hostgate keys create`');
    }
    const decision = buckets.take(key.id);
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `too many requests for this API key; retry after ${decision.retryAfterSeconds} s`, { headers: { 'retry-after': String(decision.retryAfterSeconds) } });
    }
    request.principal = { kind: 'api_key', organizationId: key.organization_id, keyId: key.id, scopes: new Set(key.scopes) };
    if (config.scope && !request.principal.scopes.has(config.scope)) {
      throw new ApiError('insufficient_scope', `this API key lacks the ${config.scope} scope; create a key with it (hostgate keys create --scopes ${config.scope})`, { details: { required_scope: config.scope } });
    }
  });
});
