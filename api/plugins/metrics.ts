// Request metrics for every route of the app (metrics/http.ts): one onResponse hook, labelled by
// the route template. The endpoint that serves them is not part of the public API: api/server.ts
// serves them on HOSTGATE_API_METRICS_PORT (loopback by default; docs/operations.md, "Metrics").
import fp from 'fastify-plugin';
import { observeHttpRequest } from '../../metrics/http.ts';

export const metricsPlugin = fp(async (app) => {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    observeHttpRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
}, { name: 'hostgate-metrics' });
