// Every documented route's error responses, added as the route is registered: the codes its
// options imply plus those it declares in `config.errors`, each status with its envelope schema,
// the codes it can carry and an example body per code (api/schemas/responses.ts). One table per
// route, the rest derived, so the OpenAPI document and what the hooks answer cannot drift apart
// (test/openapi.test.ts provokes each code and checks it is documented).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../errors.ts';
import { errorResponses, routeErrorCodes } from '../schemas/responses.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The codes this route answers beyond those its options imply (auth, scope, idempotency, parsing). */
    errors?: readonly ErrorCode[];
  }
}

export const errorResponsesPlugin = fp(async function errorResponsesDocs(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { apiKey?: boolean; widget?: boolean };
    const schema = route.schema as (Record<string, unknown> & { hide?: boolean; response?: Record<string, unknown> }) | undefined;
    // The documented API only: API-key and widget-token routes (health, pages and the Stripe
    // webhook are hidden and answer their own way).
    if (!schema || schema.hide || !(config.apiKey || config.widget)) return;
    // Mutated in place: @fastify/swagger keeps a reference to these route options.
    schema.response = { ...(schema.response ?? {}), ...errorResponses(routeErrorCodes({ method: route.method, config: route.config, schema })) };
  });
});
