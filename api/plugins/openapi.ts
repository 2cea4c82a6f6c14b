// OpenAPI 3.1 generated from the route schemas (TypeBox), served at /v1/openapi.json, with a
// reference page at /docs. Security and the Idempotency-Key header are added from route options,
// response headers from what each response can carry, and named schemas become components
// (openapi-components.ts), so the document cannot drift from what the hooks enforce. Every
// operation's `operationId` is part of the contract (docs/api-decisions.md, "OpenAPI document").
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { namedSchemas } from '../schemas/common.ts';
import { webhooksSection } from '../schemas/webhook-events.ts';
import { hoistComponents } from './openapi-components.ts';

/** The document's tags, in reading order: each operation has one of these. */
export const TAGS = [
  { name: 'destinations', description: 'The HTTPS origins of your application that customer hostnames are served from.' },
  { name: 'domains', description: "Your customers' hostnames: DNS records to set, verification, certificates, deletion." },
  { name: 'webhook-endpoints', description: 'Where Hostgate POSTs signed events about your domains, and their signing secrets.' },
  { name: 'webhook-deliveries', description: 'The log of every event sent to every endpoint: status, attempts, manual retry.' },
  { name: 'widget', description: 'The embeddable <service-widget>: sessions minted by your server (API key), and the browser endpoints the element calls (widget token).' },
  { name: 'billing', description: 'Usage of the current period, plans and subscriptions, and the invoices of closed periods.' },
  { name: 'analytics', description: 'Traffic per hostname from the edge: requests, status classes, bytes, origin-time percentiles, per minute, hour or day.' },
  { name: 'webhooks', description: 'What Hostgate sends to your webhook endpoints (the `webhooks` section): one entry per event kind.' },
];

/** Response headers, declared once under components.headers and referenced by every response that sends them. */
const HEADERS = {
  'X-Request-Id': {
    description: "The request's id: the X-Request-Id you sent when it is sane (1–128 printable characters), else one generated (`req_…`). Every answer carries it; quote it to support.",
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: 'Present, `true`, when this answer is the stored answer of an earlier request with the same Idempotency-Key (method, path and body equal): nothing was done again.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying (429 `rate_limited`, 503 `service_unavailable`, 409 `idempotency_key_in_use`).',
    schema: { type: 'integer', minimum: 0 },
  },
};

/** Codes whose answers carry Retry-After. */
const RETRY_AFTER_CODES = ['rate_limited', 'service_unavailable', 'idempotency_key_in_use'];

type Json = Record<string, any>;

/** Declares on each response the headers it can carry (referenced from components.headers). */
function declareHeaders(doc: Json): void {
  doc.components.headers = HEADERS;
  const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      const idempotent = (op.parameters ?? []).some((p: Json) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        const codes = [...String(response.description ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
        response.headers = {
          'X-Request-Id': ref('X-Request-Id'),
          // A replay answers the stored status and body: any answer but a 5xx (never stored).
          ...(idempotent && Number(status) < 500 ? { 'Idempotent-Replayed': ref('Idempotent-Replayed') } : {}),
          ...(codes.some((c) => RETRY_AFTER_CODES.includes(c)) ? { 'Retry-After': ref('Retry-After') } : {}),
        };
      }
    }
  }
}

export const openapiPlugin = fp(async function openapi(app: FastifyInstance) {
  const publicUrl = app.deps.config.publicUrl;
  await app.register(swagger, {
    // OpenAPI 3.1 has `const`: a fixed value stays one (a `Literal` type in generated clients),
    // not a one-value enum (a one-member enum class).
    convertConstToEnum: false,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hostgate API',
        version: '1.0.0',
        description: [
          'Custom domains for SaaS vendors: declare a destination (your application\'s HTTPS origin), connect your customers\' hostnames to it, show them the DNS records to set, and Hostgate verifies DNS, issues certificates and serves them at its edge.',
          'Every non-2xx answer is `{"error": {"code", "message", "request_id", "param"?, "details"?}}` (the `Error` schema); branch on `code`.',
          'Every write except POST /v1/billing/checkout-session needs an `Idempotency-Key` header; a replay answers the original status and body with `Idempotent-Replayed: true`.',
          'Timestamps are RFC 3339, UTC, with milliseconds (`2026-11-26T15:04:27.666Z`). Lists are newest first, paginated with `limit` and `cursor`.',
          'Operation ids (`domains.create`, `webhookDeliveries.retry`, …) are stable: generated clients can name their methods after them.',
        ].join('\n\n'),
        contact: { name: 'Hostgate API reference', url: `${publicUrl}/docs` },
      },
      servers: [{ url: publicUrl, description: 'This Hostgate deployment' }],
      tags: TAGS,
      // What Hostgate POSTs to the vendor's webhook endpoints: one entry per event kind (OpenAPI 3.1).
      webhooks: webhooksSection(),
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'hg_live_…', description: 'Server API key `hg_live_…` (keep it on your server): `Authorization: Bearer hg_live_…`' },
          widgetToken: { type: 'http', scheme: 'bearer', bearerFormat: 'wst_…', description: 'Widget session token `wst_…` (browser; valid 1800 s; Origin checked), minted by POST /v1/widget-sessions' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const config = (route.config ?? {}) as { apiKey?: boolean; widget?: boolean; idempotent?: boolean };
      const out: FastifySchema & Record<string, unknown> = { ...(schema as object) };
      if (config.apiKey) out.security = [{ apiKey: [] }];
      if (config.widget) out.security = [{ widgetToken: [] }];
      if (config.idempotent) {
        out.headers = {
          type: 'object',
          properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 128, description: 'Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h' } },
          required: ['idempotency-key'],
        };
      }
      return { schema: out, url };
    },
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: Json }).openapiObject;
      hoistComponents(doc, namedSchemas);
      declareHeaders(doc);
      return doc;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
