// The server API under /v1: API-key authentication, idempotency, then one plugin per resource.
import type { FastifyPluginAsync } from 'fastify';
import { apiKeyAuthPlugin } from '../plugins/api-key-auth.ts';
import { idempotencyPlugin } from '../plugins/idempotency.ts';
import { destinationRoutes } from './destinations.ts';
import { domainRoutes } from './domains.ts';
import { domainCertificateRoutes } from './domain-certificate.ts';
import { webhookEndpointRoutes } from './webhook-endpoints.ts';
import { webhookDeliveryRoutes } from './webhook-deliveries.ts';
import { widgetSessionRoutes } from './widget-sessions.ts';
import { widgetRoutes } from './widget.ts';
import { usageRoutes } from './usage.ts';
import { analyticsRoutes } from './analytics.ts';
import { billingRoutes } from './billing.ts';
import { billingInvoiceRoutes } from './billing-invoices.ts';
import { billingLocalPages } from './billing-local-pages.ts';
import { billingStripeWebhook } from './billing-stripe-webhook.ts';

export const v1Routes: FastifyPluginAsync = async (app) => {
  await app.register(apiKeyAuthPlugin);
  await app.register(idempotencyPlugin);
  await app.register(destinationRoutes);
  await app.register(domainRoutes);
  await app.register(domainCertificateRoutes);
  await app.register(webhookEndpointRoutes);
  await app.register(webhookDeliveryRoutes);
  await app.register(widgetSessionRoutes);
  await app.register(widgetRoutes);
  await app.register(usageRoutes);
  await app.register(analyticsRoutes);
  await app.register(billingRoutes);
  await app.register(billingInvoiceRoutes);
  await app.register(billingLocalPages);
  await app.register(billingStripeWebhook);
};
