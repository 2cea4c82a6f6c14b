import type { Static } from 'typebox';
import type { WebhookEndpointRow } from '../../db/repositories/webhook-endpoints.ts';
import type { RotatedWebhookEndpoint, WebhookEndpoint, WebhookEndpointWithSecret } from '../schemas/webhook-endpoints.ts';

/** The endpoint as reads answer it: never a secret (sealed or plain). */
export function presentWebhookEndpoint(e: WebhookEndpointRow): Static<typeof WebhookEndpoint> {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    // Checked against the known kinds on every write (api/routes/webhook-endpoints.ts).
    events: e.events as Static<typeof WebhookEndpoint>['events'],
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

/** Creation response: the one time the secret is shown. */
export function presentCreatedWebhookEndpoint(e: WebhookEndpointRow, secret: string): Static<typeof WebhookEndpointWithSecret> {
  return { ...presentWebhookEndpoint(e), secret };
}

/** Rotate-secret response: the new secret, shown once, and until when the previous one signs. */
export function presentRotatedWebhookEndpoint(e: WebhookEndpointRow, secret: string): Static<typeof RotatedWebhookEndpoint> {
  return { ...presentWebhookEndpoint(e), secret, previous_secret_expires_at: e.previous_secret_expires_at };
}
