// The API as a Fastify plugin tree. `buildApp` makes the instance without listening, so tests
// and the server build exactly the same thing.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { loggerOptions, type Logger } from '../logging/logger.ts';
import type { OutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { refuseCredentialsInUrl } from './plugins/api-key-auth.ts';
import { clientErrorHandler, connectionsCheckingInterval, SHUTDOWN_RETRY_AFTER_SECONDS } from './plugins/connection-errors.ts';
import { ApiError } from './errors.ts';
import { AuthFailureLimit } from './auth-failure-limit.ts';
import { createApiKeyCache, type ApiKeyCache } from './api-key-cache.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { errorResponsesPlugin } from './plugins/error-responses.ts';
import { errorsPlugin, sendError, toApiError } from './plugins/errors.ts';
import { strictUtf8Plugin } from './plugins/strict-utf8.ts';
import { requestIdFrom } from './request-id.ts';
import { openapiPlugin } from './plugins/openapi.ts';
import { healthRoutes } from './routes/health.ts';
import { v1Routes } from './routes/v1.ts';
import { widgetAssetsPlugin } from './plugins/widget-assets.ts';
import { widgetDemoPlugin } from './plugins/widget-demo.ts';
import { validatorCompiler } from './validation.ts';
import { SecretBox } from '../security/secret-box.ts';
import type { PromiseLookup } from '../security/outbound-url.ts';
import { metricsPlugin } from './plugins/metrics.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  /**
   * Temporal as readiness sees it: a client, or a provider that connects on first use (the API
   * process: it starts while Temporal may still be booting). Null when Temporal is not
   * configured (readiness then reports it).
   */
  temporal: { client: Client | (() => Promise<Client>) } | null;
  dispatcher: OutboxDispatcher | null;
  logger?: Logger;
  /** DNS lookup behind the SSRF guard's create-time check of webhook URLs (tests; default dns.lookup). */
  dnsLookup?: PromiseLookup;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
    /** Seals secrets at rest (webhook secrets, stored idempotent responses). */
    secretBox: SecretBox;
    /** Failed authentications per client address (api/auth-failure-limit.ts). */
    authFailures: AuthFailureLimit;
    /** Authenticated API keys kept for seconds, evicted on revocation (api/api-key-cache.ts). */
    apiKeyCache: ApiKeyCache;
  }
}

export const BODY_LIMIT = 64 * 1024;

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export async function buildApp(deps: AppDeps): Promise<App> {
  const app = Fastify({
    logger: deps.logger ? undefined : { ...loggerOptions(deps.config.logLevel, 'api') },
    ...(deps.logger ? { loggerInstance: deps.logger as FastifyBaseLogger } : {}),
    bodyLimit: BODY_LIMIT,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    // A client must send the whole request (headers and body) within this: one byte every few
    // seconds no longer holds a connection for minutes (issue 14). Node checks it every
    // `connectionsCheckingInterval`, so the cut comes at most that much later.
    requestTimeout: deps.config.api.requestTimeoutMs,
    http: { connectionsCheckingInterval: connectionsCheckingInterval(deps.config.api.requestTimeoutMs), headersTimeout: deps.config.api.requestTimeoutMs },
    clientErrorHandler,
    // Requests arriving while the server drains get our envelope (the hook below) instead of
    // Fastify's own 503 body.
    return503OnClosing: false,
    // Errors Fastify raises before routing (bad percent-encoding, over-long params) get the
    // envelope and request id like every other answer.
    frameworkErrors: (error, request, reply) => sendError(reply, toApiError(error, request)),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // HOSTGATE_TRUSTED_PROXIES (docs/deploy.md): only these peers' X-Forwarded-For names the
    // client (request.ip, the key of the failed-authentication limit); none by default, so a
    // client cannot pick its own address by sending the header.
    trustProxy: deps.config.api.trustedProxies.length ? deps.config.api.trustedProxies : false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('deps', deps);
  app.decorate('secretBox', new SecretBox(deps.config.encryptionKeys));
  // One budget per client address shared by API-key and widget-token authentication.
  app.decorate('authFailures', new AuthFailureLimit({
    ...deps.config.api.authFailureLimit,
    onSpent: (client) => app.log.warn({ client }, 'an address spent its failed-authentication budget: its requests needing a credential lookup answer 429 until it refills (hostgate_api_auth_failures_total{outcome="refused"})'),
  }));
  const keys = apiKeysRepository(deps.db);
  app.decorate('apiKeyCache', createApiKeyCache({
    lookup: (secret) => keys.authenticate(secret),
    ttlMs: deps.config.api.keyCacheTtlMs,
    databaseUrl: deps.config.db.url,
    logger: app.log as Logger,
  }));
  // Its LISTEN connection opens with the app (an app built and never readied opens nothing).
  app.addHook('onReady', async () => { app.apiKeyCache.start(); });
  app.addHook('onClose', async () => { await app.apiKeyCache.close(); });
  app.setValidatorCompiler(validatorCompiler);
  // JSON only: a text/plain body answers 415 instead of being parsed as a string.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  let draining = false;
  app.addHook('preClose', async () => { draining = true; });
  // Answers finished while draining close their connection, so a keep-alive client does not
  // hold the server open (close() waits for every connection).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!draining) return;
    throw new ApiError('service_unavailable', 'the server is shutting down; retry, another instance will answer', { headers: { 'retry-after': String(SHUTDOWN_RETRY_AFTER_SECONDS) } });
  });
  app.addHook('onRequest', refuseCredentialsInUrl);

  await app.register(metricsPlugin);
  await app.register(errorsPlugin);
  await app.register(errorResponsesPlugin);
  await app.register(strictUtf8Plugin);
  await app.register(openapiPlugin);
  await app.register(healthRoutes);
  await app.register(v1Routes, { prefix: '/v1' });
  await app.register(widgetAssetsPlugin);
  // A page for people trying the widget: it creates sessions for whoever asks, so never in production.
  if (deps.config.env !== 'production') await app.register(widgetDemoPlugin);
  return app;
}
