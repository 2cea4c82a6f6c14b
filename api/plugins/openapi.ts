// OpenAPI 3.1 generated from the route schemas (TypeBox), served at /v1/openapi.json, with a
// reference page at /docs. Security and the Idempotency-Key header are added from route options,
// so the document cannot drift from what the hooks enforce.
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { webhooksSection } from '../schemas/webhook-events.ts';

export const openapiPlugin = fp(async function openapi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hostgate API',
        version: '1.0.0',
        description: 'Custom domains for SaaS vendors. Every non-2xx answer is `{"error": {"code", "message", "request_id", "param"?, "details"?}}`; branch on `code`. Every write except POST /billing/checkout-session needs an `Idempotency-Key` header; a replay answers the original status and body with `Idempotent-Replayed: true`.',
      },
      servers: [{ url: app.deps.config.publicUrl }],
      // What Hostgate POSTs to the vendor's webhook endpoints: one entry per event kind (OpenAPI 3.1).
      webhooks: webhooksSection(),
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Server API key `hg_live_…` (keep it on your server)' },
          widgetToken: { type: 'http', scheme: 'bearer', description: 'Widget session token `wst_…` (browser; valid 1800 s; Origin checked)' },
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
          properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 128, description: 'Stable business key of 1–128 characters, reused on retries of the same request; kept 24 h' } },
          required: ['idempotency-key'],
        };
      }
      return { schema: out, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
