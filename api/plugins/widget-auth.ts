// Browser calls of <service-widget>: `Authorization: Bearer wst_…` (a widget session token), the
// `Origin` checked against the session's allowlist on every call, CORS for allowed origins only,
// and per-session rate limits. Runs on onRequest for routes with `config.widget`, before the body
// is parsed. API-key routes are untouched (they carry `config.apiKey` instead).
//
// Precedence: no token → 401 missing_token; malformed → invalid_widget_token; the client address's
// failed-authentication budget spent → 429 rate_limited (no lookup); unknown → invalid_widget_token; expired →
// widget_token_expired; Origin missing or not allowed → 403 origin_forbidden; then the rate limit.
//
// CORS is answered here rather than by @fastify/cors (11.4, measured 2026-11-26): it decides in its
// own hook, before the token is known, whereas whether an answer carries data depends on the
// token's session. Every widget answer (errors included) is readable by the asking origin, so the
// page can read origin_forbidden, missing_token or widget_token_expired; only answers to an
// allowed origin carry data.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { widgetSessionsRepository, type WidgetSessionRow } from '../../db/repositories/widget-sessions.ts';
import { originAllowed, requestOrigin } from '../../security/origins.ts';
import { WIDGET_TOKEN_PREFIX } from '../../security/tokens.ts';
import { ApiError } from '../errors.ts';
import { TokenBuckets } from '../rate-limit.ts';
import { bearerToken } from './api-key-auth.ts';

/** docs/api-decisions.md, "Limits": per widget token, 5 domain creations per minute, 1 request/s of polling. */
export const WIDGET_LIMITS = {
  create: { perSecond: 5 / 60, burst: 5 },
  // Reads, verify and handover: 1/s sustained; a burst of 3 absorbs a "check now" next to a poll.
  poll: { perSecond: 1, burst: 3 },
} as const;

const CORS_ALLOW_HEADERS = 'authorization, content-type, idempotency-key, x-request-id';
const CORS_EXPOSE_HEADERS = 'x-request-id, idempotent-replayed, retry-after';
const CORS_MAX_AGE_SECONDS = '600';

export type WidgetLimit = keyof typeof WIDGET_LIMITS;

declare module 'fastify' {
  interface FastifyRequest {
    widgetSession: WidgetSessionRow | null;
    /** The origin this answer may be read from (CORS), when there is one. */
    widgetCorsOrigin: string | null;
  }
  interface FastifyContextConfig {
    /** Authenticated with a widget token (browser calls). */
    widget?: boolean;
    /** Which per-session rate limit a widget route counts against. */
    widgetLimit?: WidgetLimit;
    /** A CORS preflight route of the widget API. */
    widgetPreflight?: boolean;
  }
}

export function widgetSessionOf(request: FastifyRequest): WidgetSessionRow {
  if (!request.widgetSession) throw new ApiError('missing_token', 'this route needs a widget token');
  return request.widgetSession;
}

function appendVary(reply: FastifyReply, value: string) {
  const current = reply.getHeader('vary');
  const list = String(current ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!list.some((v) => v.toLowerCase() === value.toLowerCase() || v === '*')) list.push(value);
  reply.header('vary', list.join(', '));
}

export const widgetAuthPlugin = fp(async function widgetAuth(app: FastifyInstance) {
  const sessions = widgetSessionsRepository(app.deps.db);
  const buckets = {
    create: new TokenBuckets(WIDGET_LIMITS.create.perSecond, WIDGET_LIMITS.create.burst),
    poll: new TokenBuckets(WIDGET_LIMITS.poll.perSecond, WIDGET_LIMITS.poll.burst),
  };
  app.decorateRequest('widgetSession', null);
  app.decorateRequest('widgetCorsOrigin', null);

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (!config?.widget) return;
    const origin = requestOrigin(request.headers.origin);
    // Every answer is readable by the page that asked, so that the element (and the vendor) can
    // tell a setup mistake from an outage. Nothing is leaked: data is only ever sent after the
    // origin passed the session's allowlist below; any other answer is an error envelope.
    request.widgetCorsOrigin = origin;
    const token = bearerToken(request);
    if (token === null) {
      throw new ApiError('missing_token', 'send the widget token as `Authorization: Bearer wst_…` (create one with POST /v1/widget-sessions on your server and set it as the token attribute of <service-widget>)');
    }
    if (!token.startsWith(WIDGET_TOKEN_PREFIX) || token.length > 200) {
      throw new ApiError('invalid_widget_token', 'the widget token is malformed (widget tokens start with wst_): set the token attribute of <service-widget> to the `token` of POST /v1/widget-sessions');
    }
    // Same failure budget per client address as API keys (api/auth-failure-limit.ts): an unknown
    // or revoked token costs a lookup; an expired one is a real token and does not count.
    app.authFailures.refuseIfExhausted(request.ip);
    const session = await sessions.authenticate(token);
    if (!session) {
      app.authFailures.recordFailure(request.ip);
      throw new ApiError('invalid_widget_token', 'the widget token is not valid: create a new widget session on your server and set the token attribute');
    }
    if (session.key_revoked) {
      app.authFailures.recordFailure(request.ip);
      throw new ApiError('invalid_widget_token', 'the API key that created this widget session has been revoked, which ends its sessions: create a new widget session with a live key');
    }
    const allowed = originAllowed(origin, session.allowed_origins);
    if (session.expired) {
      throw new ApiError('widget_token_expired', 'the widget token has expired: create a new widget session on your server and replace the token attribute');
    }
    if (!allowed) {
      throw new ApiError('origin_forbidden', origin === null
        ? 'widget calls must come from a browser page: the Origin header is missing'
        : `this page's origin ${origin} is not in the allowed_origins of this widget session: add it to allowed_origins in POST /v1/widget-sessions on your server`);
    }
    const limit = config.widgetLimit ?? 'poll';
    const decision = buckets[limit].take(`${session.id}`);
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `too many ${limit === 'create' ? 'domain creations' : 'requests'} for this widget session; retry after ${decision.retryAfterSeconds} s`, { headers: { 'retry-after': String(decision.retryAfterSeconds) } });
    }
    const { expired: _expired, ...row } = session;
    request.widgetSession = row;
    request.idempotencyScope = `wss:${session.id}`;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const config = request.routeOptions.config;
    if (!config?.widget && !config?.widgetPreflight) return payload;
    appendVary(reply, 'Origin');
    const origin = request.widgetCorsOrigin;
    if (origin) {
      reply.header('access-control-allow-origin', origin);
      if (config.widget) reply.header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
    }
    return payload;
  });

  /**
   * Answers a CORS preflight: 204 with the CORS headers for any origin (a preflight carries no
   * token, and only the call that follows can say whether the token's session allows the origin:
   * refusing here would turn origin_forbidden into an unreadable network error); 403 without one.
   */
  app.decorate('widgetPreflight', async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = requestOrigin(request.headers.origin);
    if (origin === null) throw new ApiError('origin_forbidden', 'a CORS preflight needs an Origin header');
    request.widgetCorsOrigin = origin;
    reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
    reply.header('access-control-allow-headers', CORS_ALLOW_HEADERS);
    reply.header('access-control-max-age', CORS_MAX_AGE_SECONDS);
    if (request.headers['access-control-request-private-network'] === 'true') reply.header('access-control-allow-private-network', 'true');
    return reply.code(204).send();
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    widgetPreflight(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  }
}
