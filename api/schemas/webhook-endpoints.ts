import { Type } from 'typebox';
import { eventKinds } from '../../model/domain-status.ts';
import { Timestamp } from './common.ts';

const eventsDescription = `Subscribed event kinds: ["*"] (every event) or a list of ${eventKinds.map((k) => `\`${k}\``).join(', ')}`;

// The resource as every read answers it: no secret (responses are serialized through this
// schema, so a field absent here never leaves the API).
export const WebhookEndpoint = Type.Object({
  id: Type.String({ description: 'Identifier (whe_…)' }),
  url: Type.String({ description: 'HTTPS URL deliveries are POSTed to' }),
  description: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String(), { description: eventsDescription }),
  enabled: Type.Boolean({ description: 'False: no deliveries are made' }),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the endpoint is disabled: `manual` (PATCH enabled=false) or set by delivery (e.g. the endpoint answered 410 Gone); null when enabled' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'WebhookEndpoint' });

const Secret = Type.String({ pattern: '^whsec_[0-9a-z]{32}$', description: 'Signing secret (whsec_…). Shown only in this response: store it now.' });

/** The creation response: the endpoint plus its secret, shown once. */
export const WebhookEndpointWithSecret = Type.Object({
  ...WebhookEndpoint.properties,
  secret: Secret,
});

/** The rotate-secret response: the endpoint, its new secret, and until when the old one still signs. */
export const RotatedWebhookEndpoint = Type.Object({
  ...WebhookEndpoint.properties,
  secret: Secret,
  previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Until then deliveries carry a second `v1=` signature made with the previous secret' }),
});

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https URL with any port, path and query; no credentials or fragment; the host must be public' });
const Events = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 32, uniqueItems: true, description });
const Description = Type.String({ maxLength: 500 });

export const CreateWebhookEndpointBody = Type.Object({
  url: Url,
  events: Type.Optional(Events(`${eventsDescription}. Default ["*"]`)),
  description: Type.Optional(Description),
}, { additionalProperties: false });

export const UpdateWebhookEndpointBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events(eventsDescription)),
  enabled: Type.Optional(Type.Boolean({ description: 'true re-enables (and clears disabled_reason); false pauses deliveries' })),
  description: Type.Optional(Type.Union([Description, Type.Null()], { description: 'null clears it' })),
}, { additionalProperties: false, description: 'At least one field' });

export const WebhookEndpointIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
